/**
 * @module Loads a set of manifests that belong together — the files and directories of one
 * command line, or YAML posted to the API — and checks them as a set: each document against its
 * schema, then names and references across all of them. All or nothing: any error means no
 * manifests are returned, so half a set is never applied.
 *
 * Two paths, one result. Most sets are valid, so a set is first read on the fast path
 * (manifest-fast-parser), about six times faster:
 * - each text gets the guards the exact path runs before parsing (size, documents, nesting),
 *   plus a count of aliases, so an alias bomb never reaches js-yaml;
 * - js-yaml reads it with a schema that resolves scalars exactly as `yaml`'s core schema does
 *   (yaml-fast-schema); the text, and js-yaml's events while it reads, are screened for anything
 *   the two parsers might read differently or `yaml` refuses (tags, directives, tabs, null or
 *   collection keys, aliases that `maxAliasCount` could refuse, …: yaml-fast-screen,
 *   yaml-fast-reader). Such a text is declined, not guessed at: `parseManifestText` reads it;
 * - every document is validated against its schema, then names and references are checked
 *   across the set;
 * - no parse tree is kept: each document's line and column come from where js-yaml found its
 *   content, and `locate()` parses the text with `yaml` the first time it is called (the text
 *   itself is kept for that).
 * With a cache (manifest-cache), a text read before under the same key skips all of that: its
 * manifests come from the cache, and only the checks across the set run again.
 * The fast result is returned only if all of that succeeds. If anything fails — js-yaml refuses a
 * text, a schema issue, a duplicate name, a missing reference — it is dropped and the whole set
 * goes through the exact path (`yaml`, positions kept, as it always did), so every error,
 * position and order is exactly what that path gives. manifest-fast-path.test.ts and
 * yaml-fast-reader.test.ts hold the two paths to the same results.
 */
import { resourceKey } from './resource.js';
import { isKind } from './kinds.js';
import { compareErrorPositions, formatManifestError, wholeFileError, type ManifestError } from './manifest-error.js';
import { expandManifestPaths, readManifestFile, readStdinText, type ManifestSource } from './manifest-files.js';
import { DEFAULT_MANIFEST_LIMITS, formatByteSize, type ManifestLimits } from './manifest-limits.js';
import { decodeCachedManifests, encodeCachedManifests, manifestCacheKey, type ManifestCacheStore } from './manifest-cache.js';
import { readManifestsFast } from './manifest-fast-parser.js';
import { parseManifestText, type LocatedManifest, type ParseResult } from './manifest-parser.js';
import { checkDuplicateNames, checkReferences, checkServerVendorFields, hasMissingReferences, hasServerFieldProblems, type KnownResource } from './manifest-references.js';

export type { ManifestSource } from './manifest-files.js';

export interface LoadOptions {
  limits?: ManifestLimits;
  /** Resources that exist besides the loaded ones (e.g. already stored); references to them are accepted. */
  known?: KnownResource;
  /** Reads stdin for the path `-`; by default process.stdin, up to the file size limit. */
  readStdin?: () => Promise<string | undefined>;
  /** Where texts read before keep their manifests (see manifest-cache); without one, every text is parsed. */
  cache?: ManifestCacheStore;
}

/** The manifests of a set when all of it is valid; otherwise every error and no manifests. */
export interface LoadResult {
  manifests: LocatedManifest[];
  errors: ManifestError[];
}

/**
 * Orders errors by the order their files were given in, then top to bottom within a file, and
 * shows at most `limit` per file, ending that file's errors with a count of the ones left out.
 */
function orderErrors(errors: readonly ManifestError[], fileOrder: readonly string[], omitted: ReadonlyMap<string, number>, limit: number): ManifestError[] {
  const byFile = new Map<string, ManifestError[]>();
  for (const file of [...fileOrder, ...errors.map((e) => e.file)]) if (!byFile.has(file)) byFile.set(file, []);
  for (const error of errors) byFile.get(error.file)?.push(error);
  const ordered: ManifestError[] = [];
  for (const [file, fileErrors] of byFile) {
    fileErrors.sort(compareErrorPositions);
    ordered.push(...fileErrors.slice(0, limit));
    const left = Math.max(0, fileErrors.length - limit) + (omitted.get(file) ?? 0);
    if (left > 0) ordered.push(wholeFileError(file, `${left} more error${left === 1 ? '' : 's'} not shown (only the first ${limit} are)`));
  }
  return ordered;
}

/** One text's manifests on the fast path, or undefined unless all of it is valid; a declined text is parsed exactly and kept in `parsed`. */
function readValidTextFast(source: ManifestSource, limits: ManifestLimits, parsed: Map<ManifestSource, ParseResult>): LocatedManifest[] | undefined {
  const read = readManifestsFast(source.text, source.file, limits);
  if ('invalid' in read) return undefined;
  if ('manifests' in read) return read.manifests;
  const exact = parseManifestText(source.text, source.file, limits);
  parsed.set(source, exact);
  return exact.errors.length > 0 ? undefined : exact.manifests;
}

/** A text's manifests from its cache entry, or undefined when there is none (or it cannot be read). */
function readCachedText(entry: string | undefined, source: ManifestSource): LocatedManifest[] | undefined {
  if (entry === undefined) return undefined;
  try {
    return decodeCachedManifests(entry, source.text, source.file);
  } catch {
    return undefined;
  }
}

/**
 * The manifests of a set on the fast path, or undefined unless all of it is valid (see the module
 * comment). Texts the fast path declines are parsed exactly, and kept in `parsed` for the exact
 * path. With a cache, a text read before comes from it, and each valid text read now goes into it.
 */
function loadValidSetFast(sources: readonly ManifestSource[], limits: ManifestLimits, known: KnownResource | undefined, parsed: Map<ManifestSource, ParseResult>, cache: ManifestCacheStore | undefined): LocatedManifest[] | undefined {
  const keys = cache === undefined ? [] : sources.map((s) => manifestCacheKey(s.text, limits));
  const hits = cache === undefined ? new Map<string, string>() : cache.getMany(keys);
  const fresh = new Map<string, string>();
  const manifests: LocatedManifest[] = [];
  try {
    for (const [index, source] of sources.entries()) {
      const key = keys[index];
      const cached = readCachedText(key === undefined ? undefined : hits.get(key), source);
      if (cached !== undefined) {
        manifests.push(...cached);
        continue;
      }
      const read = readValidTextFast(source, limits, parsed);
      if (read === undefined) return undefined;
      manifests.push(...read);
      const entry = key === undefined ? undefined : encodeCachedManifests(read);
      if (key !== undefined && entry !== undefined) fresh.set(key, entry);
    }
  } finally {
    if (fresh.size > 0) cache?.putMany(fresh);
  }
  if (checkDuplicateNames(manifests).length > 0 || hasMissingReferences(manifests, known) || hasServerFieldProblems(manifests)) return undefined;
  return manifests;
}

/** The exact path: every text parsed with `yaml` (unless already in `parsed`), every error found, worded and placed. */
export function loadManifestSourcesExactly(sources: readonly ManifestSource[], options: LoadOptions = {}, parsed?: ReadonlyMap<ManifestSource, ParseResult>): LoadResult {
  const limits = options.limits ?? DEFAULT_MANIFEST_LIMITS;
  const manifests: LocatedManifest[] = [];
  const errors: ManifestError[] = [];
  const omitted = new Map<string, number>();
  for (const source of sources) {
    const result = parsed?.get(source) ?? parseManifestText(source.text, source.file, limits);
    manifests.push(...result.manifests);
    errors.push(...result.errors);
    if (result.omittedErrors > 0) omitted.set(source.file, (omitted.get(source.file) ?? 0) + result.omittedErrors);
  }
  const broken = new Set(
    errors.flatMap((e) => (isKind(e.kind) && e.name !== undefined ? [resourceKey({ kind: e.kind, namespace: e.namespace, name: e.name })] : [])),
  );
  const known: KnownResource = (kind, namespace, name) =>
    broken.has(resourceKey({ kind, namespace, name })) || (options.known?.(kind, namespace, name) ?? false);
  errors.push(...checkDuplicateNames(manifests), ...checkReferences(manifests, known), ...checkServerVendorFields(manifests));
  if (errors.length === 0) return { manifests, errors: [] };
  return { manifests: [], errors: orderErrors(errors, sources.map((s) => s.file), omitted, limits.maxErrorsPerFile) };
}

/**
 * Checks YAML texts as one set. References may point at manifests of any of the texts, at
 * `options.known` resources, or at documents that are themselves broken (already reported, so
 * not reported again as missing).
 */
export function loadManifestSources(sources: readonly ManifestSource[], options: LoadOptions = {}): LoadResult {
  const parsed = new Map<ManifestSource, ParseResult>();
  const manifests = loadValidSetFast(sources, options.limits ?? DEFAULT_MANIFEST_LIMITS, options.known, parsed, options.cache);
  return manifests !== undefined ? { manifests, errors: [] } : loadManifestSourcesExactly(sources, options, parsed);
}

/**
 * Loads files, directories (recursively, *.yaml and *.yml) and `-` (stdin) as one set. A path
 * that does not exist, or a directory without manifests, is an error.
 */
export async function loadManifestPaths(paths: readonly string[], options: LoadOptions = {}): Promise<LoadResult> {
  const limits = options.limits ?? DEFAULT_MANIFEST_LIMITS;
  const expanded = await expandManifestPaths(paths);
  const readStdin = options.readStdin ?? ((): Promise<string | undefined> => readStdinText(limits.maxFileBytes));
  const sources: ManifestSource[] = [];
  const errors = [...expanded.errors];
  for (const file of expanded.files) {
    if (file === '-') {
      const text = await readStdin();
      if (text === undefined) errors.push(wholeFileError(file, `input is larger than the limit of ${formatByteSize(limits.maxFileBytes)}`));
      else sources.push({ file, text });
      continue;
    }
    const read = await readManifestFile(file, limits.maxFileBytes);
    if ('text' in read) sources.push(read);
    else errors.push(read);
  }
  const loaded = loadManifestSources(sources, options);
  if (errors.length === 0) return loaded;
  return { manifests: [], errors: [...errors, ...loaded.errors] };
}

/** The errors of a load as lines, in order, ready to print. */
export function formatLoadErrors(result: LoadResult): string[] {
  return result.errors.map(formatManifestError);
}
