/**
 * @module Opens cairn's SQLite state file: WAL mode, a busy timeout so several processes can
 * share one data dir, foreign keys on, migrations applied.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrate.js';

export const STATE_FILE = 'cairn.db';

export function openSqlite(dataDir: string, file = STATE_FILE): Database.Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, file), { timeout: 15_000 });
  enableWal(db);
  db.pragma('synchronous = NORMAL');
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

/** Now as RFC 3339 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Prepares each SQL text once per connection (preparing costs more than running most of ours). */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
