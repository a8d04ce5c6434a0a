/**
 * @module The store: cairn's state in one SQLite file per data dir. All SQL lives in this
 * folder; the rest of cairn sees only these narrow interfaces (kept narrow so a PostgreSQL
 * store can stand in for it later).
 */
import type Database from 'better-sqlite3';
import { EventLog } from './events.js';
import { Leases } from './lease.js';
import { PendingOperations } from './operations.js';
import { Resources } from './resources.js';
import { openSqlite } from './sqlite.js';

export class Store {
  readonly resources: Resources;
  readonly events: EventLog;
  readonly operations: PendingOperations;
  readonly leases: Leases;

  private constructor(private readonly db: Database.Database, readonly dataDir: string) {
    this.resources = new Resources(db);
    this.events = new EventLog(db);
    this.operations = new PendingOperations(db);
    this.leases = new Leases(db);
  }

  static open(dataDir: string): Store {
    return new Store(openSqlite(dataDir), dataDir);
  }

  /** True when the state file answers a write (for readiness checks). */
  isWritable(): boolean {
    try {
      this.db.prepare(`UPDATE meta SET value = value WHERE key = 'revision'`).run();
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
