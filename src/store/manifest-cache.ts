/**
 * @module The manifest cache in the state file (see model/manifest-cache.ts for what an entry is
 * and what its key covers). Best effort on both sides: a lookup that fails is a miss, and a write
 * that cannot get the write lock at once (another process is writing) or fails is skipped, so a
 * cache never makes a command wait or fail. The newest entries are kept up to MAX_CACHE_BYTES.
 * Entries are immutable (a key names its content), so a long-running process (serve, syncing a
 * source every minute) also keeps the entries it saw last in memory and asks SQLite only for the rest.
 */
import type { SqlConnection } from './connection.js';
import { MemoryManifestCache, type ManifestCacheStore } from '../model/manifest-cache.js';
import { StatementCache } from './sqlite.js';

/** How much the cache may hold; the oldest entries go first. */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** Entries kept in memory per process, in front of the state file. */
const MEMORY_ENTRIES = 20_000;

/** Keys looked up per statement (SQLite allows 32,766 parameters; fewer keeps statements few and small). */
const KEYS_PER_LOOKUP = 500;

export class ManifestCache implements ManifestCacheStore {
  private readonly sql: StatementCache;
  private readonly recent = new MemoryManifestCache(MEMORY_ENTRIES);

  constructor(private readonly db: SqlConnection, private readonly maxBytes: number = MAX_CACHE_BYTES) {
    this.sql = new StatementCache(db);
  }

  getMany(keys: readonly string[]): ReadonlyMap<string, string> {
    const found = new Map(this.recent.getMany(keys));
    const missing = keys.filter((key) => !found.has(key));
    try {
      const read = new Map<string, string>();
      for (let start = 0; start < missing.length; start += KEYS_PER_LOOKUP) {
        const batch = missing.slice(start, start + KEYS_PER_LOOKUP);
        const rows = this.sql
          .get(`SELECT key, entry FROM manifest_cache WHERE key IN (${batch.map(() => '?').join(',')})`)
          .all(...batch) as Array<{ key: string; entry: string }>;
        for (const row of rows) read.set(row.key, row.entry);
      }
      this.recent.putMany(read);
      for (const [key, entry] of read) found.set(key, entry);
    } catch {
      // a miss
    }
    return found;
  }

  putMany(entries: ReadonlyMap<string, string>): void {
    this.recent.putMany(entries);
    const previousTimeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    const previousSynchronous = this.db.pragma('synchronous', { simple: true }) as number;
    const ownCommit = !this.db.inTransaction;
    try {
      // Never wait for another process's write: the entries are only worth it if they cost nothing.
      this.db.pragma('busy_timeout = 0');
      // Nor for the disk: a cache entry lost to a power cut is only parsed again, so its commit
      // skips the fsync the state's commits make (the next of those makes it durable too).
      if (ownCommit) this.db.pragma('synchronous = NORMAL');
      this.db
        .transaction(() => {
          const now = Date.now();
          const insert = this.sql.get(
            `INSERT INTO manifest_cache (key, entry, bytes, stored_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET entry = excluded.entry, bytes = excluded.bytes, stored_at = excluded.stored_at`,
          );
          for (const [key, entry] of entries) insert.run(key, entry, Buffer.byteLength(entry), now);
          this.evict();
        })
        .immediate();
    } catch {
      // best effort: the texts are read again next time
    } finally {
      this.db.pragma(`busy_timeout = ${previousTimeout}`);
      if (ownCommit) this.db.pragma(`synchronous = ${previousSynchronous}`);
    }
  }

  /** Drops the oldest entries until the rest fit in maxBytes. */
  private evict(): void {
    const total = (this.sql.get(`SELECT COALESCE(SUM(bytes), 0) AS total FROM manifest_cache`).get() as { total: number }).total;
    if (total <= this.maxBytes) return;
    let excess = total - this.maxBytes;
    const oldest = this.sql.get(`SELECT key, bytes FROM manifest_cache ORDER BY stored_at, key`).iterate() as IterableIterator<{ key: string; bytes: number }>;
    const doomed: string[] = [];
    for (const row of oldest) {
      if (excess <= 0) break;
      doomed.push(row.key);
      excess -= row.bytes;
    }
    const remove = this.sql.get(`DELETE FROM manifest_cache WHERE key = ?`);
    for (const key of doomed) remove.run(key);
  }
}
