/**
 * @module The sandbox cloud's state: one SQLite file holding its servers, what they host, the
 * backups and restores of its databases, and the log lines of its apps, and the
 * metric figures a test holds for a server.
 */
import type Database from 'better-sqlite3';
import { AppLogsTable } from './app-logs-table.js';
import { AppsTable } from './apps-table.js';
import { BackupsTable } from './backups-table.js';
import { DatabaseActivities } from './database-activity.js';
import { openSandboxDatabase } from './database-file.js';
import { DatabasesTable } from './databases-table.js';
import { MetricOverridesTable } from './metric-overrides-table.js';
import { RestoresTable } from './restores-table.js';
import { ServersTable } from './servers-table.js';
import { StatementCache } from '../../store/statement-cache.js';

export class SandboxStore {
  readonly servers: ServersTable;
  readonly databases: DatabasesTable;
  readonly backups: BackupsTable;
  readonly restores: RestoresTable;
  readonly activities: DatabaseActivities;
  readonly apps: AppsTable;
  readonly appLogs: AppLogsTable;
  readonly metricOverrides: MetricOverridesTable;
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    this.db = openSandboxDatabase(dataDir);
    // Each SQL text is prepared once: preparing costs more than running most of these.
    const sql = new StatementCache(this.db);
    this.servers = new ServersTable(sql);
    this.databases = new DatabasesTable(sql);
    this.backups = new BackupsTable(sql);
    this.restores = new RestoresTable(sql);
    this.activities = new DatabaseActivities(sql);
    this.apps = new AppsTable(sql);
    this.appLogs = new AppLogsTable(sql);
    this.metricOverrides = new MetricOverridesTable(sql);
  }

  /** Runs `work` in one write transaction. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
