/**
 * @module The fast path for reading the manifests of one YAML text: the same guards as the
 * manifest parser, then js-yaml instead of `yaml`, schema validation, and positions worked out
 * without a parse tree. It returns manifests only when every document of the text is valid and
 * read exactly as the manifest parser would read it; otherwise nothing, and the caller uses the
 * manifest parser, which finds and words the errors.
 */
import type { ManifestLimits } from './manifest-limits.js';
import { lazyLocator } from './manifest-lazy-locator.js';
import { normalizeManifest, refuseManifestText, withoutByteOrderMark, type LocatedManifest } from './manifest-parser.js';
import { validateManifest } from './schema-validator.js';
import { readYamlFast } from './yaml-fast-reader.js';
import { aliasExpansionBound, scanYamlText } from './yaml-guards.js';
import { positionsOfOffsets } from './yaml-positions.js';

/**
 * The manifests of `source` (named `file`) when all of its documents are valid manifests and the
 * fast path can vouch for how it read them; undefined when anything is wrong or unsure. Empty
 * documents are skipped but counted, as in `parseManifestText`.
 */
export function readManifestsFast(source: string, file: string, limits: ManifestLimits): LocatedManifest[] | undefined {
  const text = withoutByteOrderMark(source);
  if (refuseManifestText(text, file, limits) !== undefined) return undefined;
  if (aliasExpansionBound(scanYamlText(text).maxAliasesPerDocument) > limits.maxAliasCount) return undefined;
  const documents = readYamlFast(text, limits);
  if (documents === undefined) return undefined;
  const read: Array<{ manifest: LocatedManifest['manifest']; document: number; offset: number }> = [];
  for (const [index, { value, offset }] of documents.entries()) {
    if (value === null) continue;
    const validation = validateManifest(value);
    if (!validation.valid) return undefined;
    read.push({ manifest: normalizeManifest(validation.manifest), document: index, offset });
  }
  const positions = positionsOfOffsets(text, read.map((r) => r.offset));
  const locateIn = lazyLocator(text);
  return read.map(({ manifest, document }, i) => ({
    manifest,
    file,
    line: positions[i]?.line ?? 0,
    column: positions[i]?.column ?? 0,
    document,
    locate: (pointer: string) => locateIn(document, pointer),
  }));
}
