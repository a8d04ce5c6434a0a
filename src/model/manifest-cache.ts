/**
 * @module The parsed-and-validated manifests of one YAML text, kept between runs under a key that
 * names everything the result depends on: the text's bytes, the limits it was read under, the
 * kinds' JSON Schemas, cairn's version and this cache's format. A text read before with the same
 * key is not parsed or validated again: its manifests, documents, lines and columns come back from
 * the cache, and `locate()` still parses the text with `yaml` on first use, as on the fast path.
 *
 * Only texts whose every document is a valid manifest are kept (a text with any error is always
 * read afresh, so errors are worded and placed exactly as without a cache), and only when the
 * manifests survive JSON unchanged (no non-finite numbers, no -0, no `__proto__` keys). Where the
 * entries are kept (the store, memory) is the caller's: see ManifestCacheStore.
 *
 * Bump CACHE_FORMAT whenever what a text reads as changes (parser, normalisation, this encoding)
 * without a change of cairn's version or the schemas.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ManifestLimits } from './manifest-limits.js';
import { lazyLocator } from './manifest-lazy-locator.js';
import { withoutByteOrderMark, type LocatedManifest } from './manifest-parser.js';
import type { AnyManifest } from './resource.js';
import { KIND_SCHEMA_FILES, METADATA_SCHEMA_FILE, schemaDirectory } from './schema-files.js';

/** Changes whenever what a text reads as could change without cairn's version or the schemas changing. */
export const CACHE_FORMAT = 'manifests-1';

/** Where entries live: opaque text by key, looked up and written in batches. Never throws for a miss. */
export interface ManifestCacheStore {
  getMany(keys: readonly string[]): ReadonlyMap<string, string>;
  /** Best effort: an entry that cannot be written is simply read again next time. */
  putMany(entries: ReadonlyMap<string, string>): void;
}

/** One valid document of a cached text: the manifest and where its content starts. */
interface CachedDocument {
  manifest: AnyManifest;
  document: number;
  line: number;
  column: number;
}

let salt: string | undefined;

/** cairn's version, the schemas' bytes and the cache format, hashed once per process. */
function cacheSalt(): string {
  if (salt === undefined) {
    const hash = createHash('sha256').update(CACHE_FORMAT).update('\0');
    const dir = schemaDirectory();
    const version = (JSON.parse(readFileSync(join(dirname(dir), 'package.json'), 'utf8')) as { version?: unknown }).version;
    hash.update(String(version)).update('\0');
    for (const file of [METADATA_SCHEMA_FILE, ...Object.values(KIND_SCHEMA_FILES)]) hash.update(file).update('\0').update(readFileSync(join(dir, file))).update('\0');
    salt = hash.digest('hex');
  }
  return salt;
}

/** The key of `text` read under `limits`: a hash of everything the result depends on. */
export function manifestCacheKey(text: string, limits: ManifestLimits): string {
  const orderedLimits = [limits.maxFileBytes, limits.maxDocumentsPerFile, limits.maxAliasCount, limits.maxNestingDepth, limits.maxErrorsPerFile].join(',');
  return createHash('sha256').update(cacheSalt()).update('\0').update(orderedLimits).update('\0').update(text).digest('base64url');
}

/** Whether JSON.parse(JSON.stringify(value)) gives back an equal value (deep, own keys, numbers exactly). */
function survivesJson(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return true;
  if (Array.isArray(value)) return value.every(survivesJson);
  if (typeof value === 'object') {
    if (Object.getPrototypeOf(value) !== Object.prototype) return false;
    for (const key of Object.keys(value)) {
      if (key === '__proto__' || !survivesJson((value as Record<string, unknown>)[key])) return false;
    }
    return Object.getOwnPropertySymbols(value).length === 0;
  }
  return false;
}

/** The entry for a text's manifests, or undefined when they would not come back unchanged. */
export function encodeCachedManifests(manifests: readonly LocatedManifest[]): string | undefined {
  const documents: CachedDocument[] = manifests.map((m) => ({ manifest: m.manifest, document: m.document, line: m.line, column: m.column }));
  if (!documents.every((d) => survivesJson(d.manifest))) return undefined;
  return JSON.stringify(documents);
}

/** The manifests of `source` (named `file`) from its entry: fresh objects each time, fields located lazily in `source`. */
export function decodeCachedManifests(entry: string, source: string, file: string): LocatedManifest[] {
  const documents = JSON.parse(entry) as CachedDocument[];
  const locateIn = lazyLocator(withoutByteOrderMark(source));
  return documents.map(({ manifest, document, line, column }) => ({
    manifest,
    file,
    line,
    column,
    document,
    locate: (pointer: string) => locateIn(document, pointer),
  }));
}

/** A cache held in memory only (tests, and callers without a store); at most `maxEntries`, oldest dropped first. */
export class MemoryManifestCache implements ManifestCacheStore {
  private readonly entries = new Map<string, string>();

  constructor(private readonly maxEntries = 10_000) {}

  getMany(keys: readonly string[]): ReadonlyMap<string, string> {
    const found = new Map<string, string>();
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry !== undefined) found.set(key, entry);
    }
    return found;
  }

  putMany(entries: ReadonlyMap<string, string>): void {
    for (const [key, entry] of entries) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
