/**
 * @module The corpus of broken manifests (test/fixtures/broken): each file, loaded alone, gives
 * exactly the error lines its `# expect:` header names, and no manifests. Also the refusals that
 * are generated rather than committed: oversized files, too many documents, runaway nesting.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPackageRoot } from './schema-files.js';
import { formatManifestError } from './manifest-error.js';
import { loadManifestPaths, loadManifestSources } from './manifest-loader.js';
import { parseManifestText } from './manifest-parser.js';

const corpusDir = join(findPackageRoot(import.meta.dirname), 'test', 'fixtures', 'broken');
const corpus = readdirSync(corpusDir)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

function expectedLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('# expect: '))
    .map((line) => line.slice('# expect: '.length));
}

describe('the corpus of broken manifests', () => {
  it('has at least 25 files, each expecting at least one error', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
    for (const name of corpus) expect(expectedLines(readFileSync(join(corpusDir, name), 'utf8')), name).not.toEqual([]);
  });

  it.each(corpus)('%s gives exactly the expected errors and no manifests', (name) => {
    const text = readFileSync(join(corpusDir, name), 'utf8');
    const result = loadManifestSources([{ file: name, text }]);
    expect(result.errors.map(formatManifestError)).toEqual(expectedLines(text));
    expect(result.manifests).toEqual([]);
  });

  it('refuses the alias bomb in well under a second', () => {
    const text = readFileSync(join(corpusDir, 'alias-bomb.yaml'), 'utf8');
    const started = performance.now();
    const result = parseManifestText(text, 'alias-bomb.yaml');
    expect(performance.now() - started).toBeLessThan(500);
    expect(result.errors.map((e) => e.message)).toEqual([
      'too many YAML aliases (possible alias bomb); at most 100 expansions are allowed per document',
    ]);
  });
});

describe('refusals of oversized input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-broken-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a 5 MiB file by its size, without reading it', async () => {
    const file = join(dir, 'huge.yaml');
    const line = 'apiVersion: cairn.dev/v1 # padding padding padding padding padding padding\n';
    writeFileSync(file, line.repeat(Math.ceil((5 * 1024 * 1024) / line.length)).slice(0, 5 * 1024 * 1024));
    const started = performance.now();
    const result = await loadManifestPaths([file]);
    expect(performance.now() - started).toBeLessThan(500);
    expect(result.errors.map(formatManifestError)).toEqual([`${file}: file is 5 MiB; the limit is 4 MiB per file (split it into several files)`]);
    expect(result.manifests).toEqual([]);
  });

  it('refuses posted text over the limit, and honours a smaller configured limit', () => {
    const text = `# ${'x'.repeat(2048)}\n`;
    const limits = { maxFileBytes: 1024, maxDocumentsPerFile: 10, maxAliasCount: 100, maxNestingDepth: 100, maxErrorsPerFile: 100 };
    expect(loadManifestSources([{ file: '-', text }], { limits }).errors.map(formatManifestError)).toEqual([
      '<stdin>: file is 2 KiB; the limit is 1 KiB per file (split it into several files)',
    ]);
  });

  it('refuses more than 10,000 documents per file before parsing them', () => {
    const started = performance.now();
    const result = parseManifestText('---\na: 1\n'.repeat(10_001), 'many.yaml');
    expect(performance.now() - started).toBeLessThan(500);
    expect(result.errors.map(formatManifestError)).toEqual([
      'many.yaml: file has more than 10000 YAML documents; the limit is 10000 per file',
    ]);
  });

  it('refuses runaway nesting quickly instead of overflowing the stack', () => {
    const started = performance.now();
    const result = parseManifestText(`spec: ${'['.repeat(100_000)}`, 'deep.yaml');
    expect(performance.now() - started).toBeLessThan(500);
    expect(result.errors.map(formatManifestError)).toEqual(['deep.yaml: YAML nested more than 100 levels deep; refusing to read it']);
  });

  it('reports a huge number of repeated keys in linear time', () => {
    const text = `apiVersion: cairn.dev/v1\n${'kind: Server\n'.repeat(20_000)}`;
    const started = performance.now();
    const result = loadManifestSources([{ file: 'keys.yaml', text }]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.errors).toHaveLength(101);
    expect(formatManifestError(result.errors[0]!)).toBe('keys.yaml:3:1 document 1 (Server): duplicate key "kind"');
    expect(formatManifestError(result.errors[100]!)).toBe('keys.yaml: 19899 more errors not shown (only the first 100 are)');
    expect(parseManifestText(text, 'keys.yaml').omittedErrors).toBe(19_899);
  });
});
