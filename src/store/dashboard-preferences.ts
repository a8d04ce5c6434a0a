/**
 * @module The dashboard's preferences of each signed-in subject: one JSON object, replaced whole.
 * Size and shape are the API's to check (src/api/routes/preference-routes.ts).
 */
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface StoredPreferences {
  preferences: Record<string, unknown>;
  updatedAt: string;
}

export class DashboardPreferences {
  private readonly sql: StatementCache;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  /** The subject's preferences in its tenant; undefined when it has saved none. */
  get(tenant: string, subject: string): StoredPreferences | undefined {
    const row = this.sql
      .get(`SELECT preferences, updated_at FROM dashboard_preferences WHERE subject = ? AND tenant = ?`)
      .get(subject, tenant) as { preferences: string; updated_at: string } | undefined;
    return row && { preferences: JSON.parse(row.preferences) as Record<string, unknown>, updatedAt: row.updated_at };
  }

  /** Replaces the subject's preferences with `preferences` (already checked). */
  put(tenant: string, subject: string, preferences: Record<string, unknown>): StoredPreferences {
    const updatedAt = nowIso();
    this.sql
      .get(`INSERT INTO dashboard_preferences (subject, tenant, preferences, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (subject) DO UPDATE SET tenant = excluded.tenant, preferences = excluded.preferences, updated_at = excluded.updated_at`)
      .run(subject, tenant, JSON.stringify(preferences), updatedAt);
    return { preferences, updatedAt };
  }
}
