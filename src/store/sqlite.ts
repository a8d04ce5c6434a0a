/**
 * @module Opens cairn's SQLite state file: WAL mode with `synchronous = FULL`, a busy timeout so
 * several processes can share one data dir, foreign keys on, migrations applied.
 *
 * Crash safety: with `synchronous = FULL` in WAL mode, SQLite fsyncs the write-ahead log at every
 * commit, before the commit returns; a commit that returned survives a power loss, and one that
 * did not is rolled back whole on the next open (the WAL's frames carry checksums, and only
 * frames up to the last commit record count). cairn acknowledges nothing (an API answer, a CLI
 * "applied") and sends nothing to a vendor before the commit that records it has returned:
 * `NORMAL` would fsync only at checkpoints, so a power loss could drop the last commits — a
 * write already answered 202, or the pending-create record of a create the vendor already got,
 * which would then be made a second time. The cost (one fsync per commit) is paid for by the
 * commit group (commit-group.ts), which puts the reconcile loop's many small writes into one
 * commit every few milliseconds and makes whatever must be durable wait for that commit.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SqlConnection } from './connection.js';
import { migrate } from './migrate.js';

export { StatementCache } from './statement-cache.js';

export const STATE_FILE = 'cairn.db';

export function openSqlite(dataDir: string, file = STATE_FILE): Database.Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, file), { timeout: 15_000 });
  enableWal(db);
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 15000');
  migrate(db);
  return db;
}

/**
 * Switches a new file to WAL. The switch takes an exclusive lock that SQLite's busy handler
 * does not wait for, so processes opening a new data dir together retry it briefly.
 */
function enableWal(db: Database.Database): void {
  for (let attempt = 0; ; attempt++) {
    try {
      if (db.pragma('journal_mode', { simple: true }) === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 200) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** What a connection's durability rests on, read back from SQLite (not what was asked for). */
export interface DurabilitySettings {
  journalMode: string;
  /** SQLite's `synchronous` level by name: OFF, NORMAL, FULL or EXTRA. */
  synchronous: string;
}

const SYNCHRONOUS_LEVELS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

export function durabilitySettings(db: SqlConnection): DurabilitySettings {
  const level = db.pragma('synchronous', { simple: true }) as number;
  return {
    journalMode: String(db.pragma('journal_mode', { simple: true })),
    synchronous: SYNCHRONOUS_LEVELS[level] ?? `unknown (${level})`,
  };
}

/** Now as RFC 3339 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}
