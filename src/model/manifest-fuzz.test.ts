/**
 * @module Property tests: random mutations of valid manifests — of their values and of their
 * YAML text — never make the parser or the validator throw; they only ever return errors, and
 * every error is one printable line with a sensible position.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { formatManifestError, type ManifestError } from './manifest-error.js';
import { loadManifestSources } from './manifest-loader.js';
import { parseManifestText } from './manifest-parser.js';
import { findPackageRoot } from './schema-files.js';
import { validateManifestShape } from './schema-validator.js';

const quickstartDir = join(findPackageRoot(import.meta.dirname), 'examples', 'quickstart');
const quickstartText = readdirSync(quickstartDir)
  .filter((name) => name.endsWith('.yaml'))
  .sort()
  .map((name) => readFileSync(join(quickstartDir, name), 'utf8'))
  .join('---\n');
const validManifests = parseManifestText(quickstartText, 'quickstart.yaml').manifests.map((m) => m.manifest as unknown);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside `value`, the root included. */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const paths = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...prefix, i])));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) paths.push(...pathsOf(v, [...prefix, k]));
  return paths;
}

type Mutation = { op: 'set'; value: Json } | { op: 'delete' } | { op: 'rename'; key: string };

function mutate(doc: unknown, path: Array<string | number>, mutation: Mutation): unknown {
  if (path.length === 0) return mutation.op === 'set' ? mutation.value : null;
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const token of path.slice(0, -1)) parent = parent[token] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (mutation.op === 'set') parent[last] = mutation.value;
  else if (mutation.op === 'delete') delete parent[last];
  else if (!Array.isArray(parent)) {
    parent[mutation.key] = parent[last];
    delete parent[last];
  }
  return copy;
}

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> }),
  fc.record({ op: fc.constant('delete' as const) }),
  fc.record({ op: fc.constant('rename' as const), key: fc.oneof(fc.string(), fc.constantFrom('kind', 'spec', '__proto__', 'constructor', 'storagegb')) }),
);

function expectWellFormed(errors: readonly ManifestError[]): void {
  for (const error of errors) {
    expect(error.line).toBeGreaterThanOrEqual(0);
    expect(error.column).toBeGreaterThanOrEqual(0);
    expect(formatManifestError(error)).not.toContain('\n');
  }
}

describe('random mutations of valid manifests', () => {
  it('of their values give issues, never exceptions', () => {
    fc.assert(
      fc.property(fc.nat(validManifests.length - 1), fc.nat(), mutationArbitrary, (which, pathChoice, mutation) => {
        const doc = validManifests[which];
        const paths = pathsOf(doc);
        const mutated = mutate(doc, paths[pathChoice % paths.length]!, mutation);
        const issues = validateManifestShape(mutated);
        for (const issue of issues) expect(typeof issue.message).toBe('string');
        const result = loadManifestSources([{ file: 'mutated.yaml', text: stringify(mutated) }]);
        expectWellFormed(result.errors);
      }),
      { numRuns: 400 },
    );
  });

  it('of their YAML text give errors, never exceptions', () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat(8),
      insert: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('\t', '&a ', '*a', '!!binary ', '[', '{', '---\n', ': ', '- ', '"', "'", '#', '\n  ', '<<: ')),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 5 }), (edits) => {
        let text = quickstartText;
        for (const { at, remove, insert } of edits) {
          const position = at % (text.length + 1);
          text = text.slice(0, position) + insert + text.slice(position + remove);
        }
        const result = loadManifestSources([{ file: 'edited.yaml', text }]);
        expectWellFormed(result.errors);
        if (result.errors.length > 0) expect(result.manifests).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
