/**
 * @module What a sandbox database is busy with over time. Its own transition (creating) comes
 * first; backups of it and restores into it then run one after another, each queued behind
 * the last, and while one runs the database shows `backing_up` or `restoring`.
 */
import type { StatementCache } from '../../store/statement-cache.js';
import type { DatabaseRow } from './databases-table.js';

export type DatabaseActivity = 'backing_up' | 'restoring';

export class DatabaseActivities {
  constructor(private readonly sql: StatementCache) {}

  /** When everything already asked of the database is done: a new operation starts then (or now, if later). */
  queueEnd(row: DatabaseRow): number {
    const ops = this.sql
      .get(
        `SELECT max(
           coalesce((SELECT max(completed_at_ms) FROM backups WHERE database_id = @id), 0),
           coalesce((SELECT max(completed_at_ms) FROM restores WHERE database_id = @id), 0)) AS until`,
      )
      .get({ id: row.id }) as { until: number };
    return Math.max(ops.until, row.busy_status === null ? 0 : row.busy_until_ms);
  }

  /** The backup or restore running on the database at `nowMs`, if any. */
  at(databaseId: string, nowMs: number): DatabaseActivity | null {
    const found = this.sql
      .get(
        `SELECT 'backing_up' AS activity FROM backups WHERE database_id = @id AND started_at_ms <= @now AND completed_at_ms > @now
         UNION ALL
         SELECT 'restoring' FROM restores WHERE database_id = @id AND started_at_ms <= @now AND completed_at_ms > @now
         LIMIT 1`,
      )
      .get({ id: databaseId, now: nowMs }) as { activity: DatabaseActivity } | undefined;
    return found?.activity ?? null;
  }
}
