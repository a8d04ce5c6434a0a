/**
 * @module The manifest cache in the state file: entries survive reopening the data dir, the
 * oldest go once the cache is over its size, and a write never waits for another process's lock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestCache } from './manifest-cache.js';
import { STATE_FILE } from './sqlite.js';
import { Store } from './store.js';
import { itOnSqliteFile } from '../../test/support/store-engine.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-manifest-cache-'));
  store = Store.open(dir);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the manifest cache in the store', () => {
  it('keeps entries across processes (reopening the data dir), and finds only the keys asked for', () => {
    store.manifestCache.putMany(new Map([['k1', 'one'], ['k2', 'two']]));
    store.close();
    store = Store.open(dir);
    expect([...store.manifestCache.getMany(['k2', 'k3', 'k1']).entries()].sort()).toEqual([['k1', 'one'], ['k2', 'two']]);
  });

  itOnSqliteFile('answers from memory what this process saw last, asking the state file only for the rest', () => {
    store.manifestCache.putMany(new Map([['k1', 'one']]));
    const other = Store.open(dir);
    try {
      other.manifestCache.putMany(new Map([['k2', 'two']]));
    } finally {
      other.close();
    }
    expect([...store.manifestCache.getMany(['k1', 'k2']).entries()].sort()).toEqual([['k1', 'one'], ['k2', 'two']]);
    const db = new Database(join(dir, STATE_FILE));
    try {
      db.prepare('DELETE FROM manifest_cache').run();
    } finally {
      db.close();
    }
    // Entries never change under a key, so those in memory stay good after the file dropped them.
    expect([...store.manifestCache.getMany(['k1', 'k2', 'k3']).entries()].sort()).toEqual([['k1', 'one'], ['k2', 'two']]);
  });

  it('looks up more keys than one statement takes', () => {
    const entries = new Map(Array.from({ length: 1_234 }, (_, i) => [`key-${i}`, `entry-${i}`] as const));
    store.manifestCache.putMany(entries);
    const found = store.manifestCache.getMany([...entries.keys()]);
    expect(found.size).toBe(1_234);
    expect(found.get('key-1233')).toBe('entry-1233');
  });

  itOnSqliteFile('drops the oldest entries once it holds more than its limit', () => {
    const db = new Database(join(dir, STATE_FILE));
    try {
      const cache = new ManifestCache(db, 25);
      cache.putMany(new Map([['old', 'x'.repeat(10)]]));
      db.prepare(`UPDATE manifest_cache SET stored_at = stored_at - 1000`).run();
      cache.putMany(new Map([['middle', 'y'.repeat(10)]]));
      cache.putMany(new Map([['new', 'z'.repeat(10)]]));
      expect([...new ManifestCache(db, 25).getMany(['old', 'middle', 'new']).keys()].sort()).toEqual(['middle', 'new']);
    } finally {
      db.close();
    }
  });

  itOnSqliteFile('skips a write at once, without an error, while another connection holds the write lock', () => {
    const other = new Database(join(dir, STATE_FILE));
    try {
      other.prepare('BEGIN IMMEDIATE').run();
      const started = Date.now();
      store.manifestCache.putMany(new Map([['k', 'v']]));
      expect(Date.now() - started).toBeLessThan(1_000);
      other.prepare('COMMIT').run();
      const inFile = (): number => new ManifestCache(other).getMany(['k']).size;
      expect(inFile()).toBe(0);
      // and the connection waits for locks as before afterwards
      store.manifestCache.putMany(new Map([['k', 'v']]));
      expect(inFile()).toBe(1);
    } finally {
      other.close();
    }
  });

  it('leaves the connection fsyncing every commit after writing its own entries (which skip the fsync), in a transaction or not', () => {
    store.manifestCache.putMany(new Map([['k1', 'one']]));
    expect(store.durability()).toEqual({ journalMode: 'wal', synchronous: 'FULL' });
    // Inside someone else's transaction it changes nothing about how that commit is made.
    store.transaction(() => store.manifestCache.putMany(new Map([['k2', 'two']])));
    expect(store.durability()).toEqual({ journalMode: 'wal', synchronous: 'FULL' });
    expect([...store.manifestCache.getMany(['k1', 'k2']).keys()].sort()).toEqual(['k1', 'k2']);
  });
});
