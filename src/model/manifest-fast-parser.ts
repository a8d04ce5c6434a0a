/**
 * @module The fast path for reading the manifests of one YAML text: the same guards as the
 * manifest parser, then js-yaml instead of `yaml`, schema validation, and positions worked out
 * without a parse tree. It returns manifests only when every document of the text is valid and
 * read exactly as the manifest parser would read it; otherwise nothing, and the caller uses the
 * manifest parser, which finds and words the errors.
 */
import type { ManifestLimits } from './manifest-limits.js';
import { lazyLocator } from './manifest-lazy-locator.js';
import { guardManifestText, normalizeManifest, withoutByteOrderMark, type LocatedManifest } from './manifest-parser.js';
import { validateManifest } from './schema-validator.js';
import { readYamlFast } from './yaml-fast-reader.js';
import { aliasExpansionBound } from './yaml-guards.js';
import { positionsOfOffsets } from './yaml-positions.js';

/**
 * What the fast path made of a text: its manifests; or `declined`, when the text uses something
 * the fast path does not vouch for (it may well be valid: read it with `parseManifestText`); or
 * `invalid`, when something in it is wrong (js-yaml refused it, or a document is not a valid
 * manifest).
 */
export type FastRead = { manifests: LocatedManifest[] } | { declined: string } | { invalid: string };

/**
 * The manifests of `source` (named `file`) when all of its documents are valid manifests and the
 * fast path can vouch for how it read them. Empty documents are skipped but counted, as in
 * `parseManifestText`.
 */
export function readManifestsFast(source: string, file: string, limits: ManifestLimits): FastRead {
  const text = withoutByteOrderMark(source);
  const guard = guardManifestText(text, file, limits);
  if ('refusal' in guard) return { invalid: guard.refusal.message };
  // An alias bomb (or just many aliases) goes to the manifest parser before js-yaml sees it.
  if (aliasExpansionBound(guard.scan.maxAliasesPerDocument) > limits.maxAliasCount) return { declined: 'too many aliases, counted before parsing' };
  const read = readYamlFast(text, limits);
  if ('declined' in read || 'invalid' in read) return read;
  const valid: Array<{ manifest: LocatedManifest['manifest']; document: number; offset: number }> = [];
  for (const [index, { value, offset }] of read.documents.entries()) {
    if (value === null) continue;
    const validation = validateManifest(value);
    if (!validation.valid) return { invalid: `document ${index + 1} is not a valid manifest` };
    valid.push({ manifest: normalizeManifest(validation.manifest), document: index, offset });
  }
  const positions = positionsOfOffsets(text, valid.map((v) => v.offset));
  const locateIn = lazyLocator(text);
  const manifests = valid.map(({ manifest, document }, i) => ({
    manifest,
    file,
    line: positions[i]?.line ?? 0,
    column: positions[i]?.column ?? 0,
    document,
    locate: (pointer: string) => locateIn(document, pointer),
  }));
  return { manifests };
}
