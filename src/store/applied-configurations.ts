/**
 * @module The configuration each field manager last applied to a resource with Kubernetes
 * server-side apply: what that manager owns, so that its next apply can drop fields it no
 * longer sets and notice fields someone else changed. Rows go with their resource.
 */
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface AppliedConfiguration {
  manager: string;
  config: Record<string, unknown>;
  appliedAt: string;
}

export class AppliedConfigurations {
  private readonly sql: StatementCache;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  get(uid: string, manager: string): AppliedConfiguration | undefined {
    const row = this.sql.get(`SELECT manager, config, applied_at FROM applied_configurations WHERE uid = ? AND manager = ?`).get(uid, manager) as
      | { manager: string; config: string; applied_at: string }
      | undefined;
    return row && { manager: row.manager, config: JSON.parse(row.config) as Record<string, unknown>, appliedAt: row.applied_at };
  }

  set(uid: string, manager: string, config: Record<string, unknown>): void {
    this.sql
      .get(
        `INSERT INTO applied_configurations (uid, manager, config, applied_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (uid, manager) DO UPDATE SET config = excluded.config, applied_at = excluded.applied_at`,
      )
      .run(uid, manager, JSON.stringify(config), nowIso());
  }
}
