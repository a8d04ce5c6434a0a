/**
 * @module The manifest cache: a set loaded again parses only the texts that changed, gives what a
 * load without a cache gives, and never keeps or trusts what could change the result (other limits,
 * a text with errors, values JSON would alter, an unreadable entry).
 */
import { describe, expect, it } from 'vitest';
import { encodeCachedManifests, manifestCacheKey, MemoryManifestCache, type ManifestCacheStore } from './manifest-cache.js';
import { formatManifestError } from './manifest-error.js';
import { DEFAULT_MANIFEST_LIMITS } from './manifest-limits.js';
import { loadManifestSources, type LoadResult, type ManifestSource } from './manifest-loader.js';
import type { LocatedManifest } from './manifest-parser.js';

const server = (name: string, size: string, provider = 'sandbox'): string =>
  `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: ${provider}\n  region: eu-1\n  size: ${size}\n`;
const PROVIDER = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n';

function fleet(sizeOfFirst: string): ManifestSource[] {
  return [{ file: 'provider.yaml', text: PROVIDER }, ...['a', 'b', 'c'].map((n, i) => ({ file: `servers/${n}.yaml`, text: server(`web-${n}`, i === 0 ? sizeOfFirst : 'small') }))];
}

/** A memory cache that counts the entries it was asked for, found and given. */
class CountingCache implements ManifestCacheStore {
  readonly inner = new MemoryManifestCache();
  asked = 0;
  found = 0;
  stored = 0;

  getMany(keys: readonly string[]): ReadonlyMap<string, string> {
    const found = this.inner.getMany(keys);
    this.asked += keys.length;
    this.found += found.size;
    return found;
  }

  putMany(entries: ReadonlyMap<string, string>): void {
    this.stored += entries.size;
    this.inner.putMany(entries);
  }
}

function seen(result: LoadResult): unknown {
  return {
    errors: result.errors.map(formatManifestError),
    manifests: result.manifests.map((m) => ({ manifest: m.manifest, at: `${m.file}:${m.line}:${m.column}#${m.document}`, size: m.locate('/spec/size') })),
  };
}

describe('the manifest cache', () => {
  it('parses again only the text that changed, and reads its new content', () => {
    const cache = new CountingCache();
    const first = loadManifestSources(fleet('small'), { cache });
    expect(cache).toMatchObject({ asked: 4, found: 0, stored: 4 });

    const changed = fleet('large');
    const second = loadManifestSources(changed, { cache });
    expect(cache).toMatchObject({ asked: 8, found: 3, stored: 5 });
    expect(second.manifests.find((m) => m.manifest.metadata.name === 'web-a')?.manifest.spec).toMatchObject({ size: 'large' });
    expect(seen(second)).toStrictEqual(seen(loadManifestSources(changed)));
    expect(seen(first)).toStrictEqual(seen(loadManifestSources(fleet('small'))));
  });

  it('names each cached manifest by the file it is read from now, not the one it was cached from', () => {
    const cache = new MemoryManifestCache();
    loadManifestSources([{ file: 'old/name.yaml', text: PROVIDER }], { cache });
    const again = loadManifestSources([{ file: 'new/name.yaml', text: PROVIDER }], { cache });
    expect(again.manifests.map((m) => `${m.file}:${m.line}:${m.column}`)).toEqual(['new/name.yaml:1:1']);
  });

  it('reports errors across the set exactly as without a cache, with the valid texts cached', () => {
    const cache = new CountingCache();
    loadManifestSources(fleet('small'), { cache });
    const broken = [...fleet('small').slice(1), { file: 'extra.yaml', text: server('web-z', 'small', 'nope') }];
    const result = loadManifestSources(broken, { cache });
    expect(result.errors.map(formatManifestError)).toEqual(loadManifestSources(broken).errors.map(formatManifestError));
    expect(result.errors.length).toBeGreaterThan(0);
    expect(cache.found).toBe(3);
  });

  it('never caches a text with an error, so its errors are found afresh each time', () => {
    const cache = new CountingCache();
    const bad = [{ file: 'p.yaml', text: PROVIDER }, { file: 'bad.yaml', text: `${server('web-a', 'small')}  colour: red\n` }];
    const first = loadManifestSources(bad, { cache });
    const second = loadManifestSources(bad, { cache });
    expect(first.errors.map(formatManifestError)).toEqual(second.errors.map(formatManifestError));
    expect(first.errors.length).toBe(1);
    expect(cache).toMatchObject({ stored: 1, found: 1 });
  });

  it('keys a text by the limits it is read under too', () => {
    const key = manifestCacheKey(PROVIDER, DEFAULT_MANIFEST_LIMITS);
    expect(manifestCacheKey(PROVIDER, { ...DEFAULT_MANIFEST_LIMITS })).toBe(key);
    expect(manifestCacheKey(PROVIDER, { ...DEFAULT_MANIFEST_LIMITS, maxAliasCount: 3 })).not.toBe(key);
    expect(manifestCacheKey(PROVIDER, { ...DEFAULT_MANIFEST_LIMITS, maxFileBytes: 10 })).not.toBe(key);
    expect(manifestCacheKey(`${PROVIDER}\n`, DEFAULT_MANIFEST_LIMITS)).not.toBe(key);
  });

  it('does not trust a text read under other limits: a file over a smaller size limit is refused', () => {
    const cache = new MemoryManifestCache();
    loadManifestSources([{ file: 'p.yaml', text: PROVIDER }], { cache });
    const small = loadManifestSources([{ file: 'p.yaml', text: PROVIDER }], { cache, limits: { ...DEFAULT_MANIFEST_LIMITS, maxFileBytes: 10 } });
    expect(small.errors.map(formatManifestError)).toEqual(['p.yaml: file is 90 bytes; the limit is 10 bytes per file (split it into several files)']);
  });

  it('keeps nothing JSON would change (non-finite numbers, -0, __proto__ keys)', () => {
    const located = (spec: object): LocatedManifest => ({
      manifest: { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'p' }, spec: spec as never },
      file: 'f.yaml', line: 1, column: 1, document: 0, locate: () => ({ line: 1, column: 1 }),
    });
    expect(encodeCachedManifests([located({ vendor: 'sandbox' })])).toBeTypeOf('string');
    expect(encodeCachedManifests([located({ vendor: 'sandbox', n: Infinity })])).toBeUndefined();
    expect(encodeCachedManifests([located({ vendor: 'sandbox', n: NaN })])).toBeUndefined();
    expect(encodeCachedManifests([located({ vendor: 'sandbox', n: -0 })])).toBeUndefined();
    expect(encodeCachedManifests([located(JSON.parse('{"vendor":"sandbox","__proto__":{"x":1}}') as object)])).toBeUndefined();
  });

  it('reads a text again when its entry cannot be read', () => {
    const store: ManifestCacheStore = { getMany: (keys) => new Map(keys.map((k) => [k, '{not json'])), putMany: () => undefined };
    const result = loadManifestSources(fleet('small'), { cache: store });
    expect(seen(result)).toStrictEqual(seen(loadManifestSources(fleet('small'))));
  });
});
