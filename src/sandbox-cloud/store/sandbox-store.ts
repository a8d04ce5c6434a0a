/**
 * @module The sandbox cloud's state: one SQLite file holding its servers and what they host.
 */
import type Database from 'better-sqlite3';
import { AppsTable } from './apps-table.js';
import { openSandboxDatabase } from './database-file.js';
import { DatabasesTable } from './databases-table.js';
import { ServersTable } from './servers-table.js';

export class SandboxStore {
  readonly servers: ServersTable;
  readonly databases: DatabasesTable;
  readonly apps: AppsTable;
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    this.db = openSandboxDatabase(dataDir);
    this.servers = new ServersTable(this.db);
    this.databases = new DatabasesTable(this.db);
    this.apps = new AppsTable(this.db);
  }

  /** Runs `work` in one write transaction. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
