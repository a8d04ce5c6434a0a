/**
 * @module The SQL every delivery outbox shares (alerts' `alert_deliveries`, event webhooks'
 * `event_webhook_deliveries`; both have id, status pending|delivered|failed, attempts,
 * last_error, next_attempt_at, delivered_at and created_at): which rows are due, and marking an
 * attempt delivered or failed (kept one line, at most 1,000 characters).
 */
import type { SqlConnection } from './connection.js';
import { StatementCache } from './sqlite.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** What every outbox's delivery has, as read. */
export interface OutboxDelivery {
  id: string;
  tenant: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string;
  deliveredAt: string | null;
  createdAt: string;
}

/** A delivery's error as kept: one line, at most 1,000 characters. */
export function shortError(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 1000 ? `${line.slice(0, 997)}...` : line;
}

export class OutboxTable<Row> {
  private readonly sql: StatementCache;

  /** `table` is one of this module's outbox tables, never input. */
  constructor(db: SqlConnection, private readonly table: 'alert_deliveries' | 'event_webhook_deliveries') {
    this.sql = new StatementCache(db);
  }

  /** Pending rows whose next attempt is due at `now`, oldest first. */
  due(now: string, limit: number): Row[] {
    return this.sql.get(`SELECT * FROM ${this.table} WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, created_at LIMIT ?`)
      .all(now, limit) as Row[];
  }

  /** When the next pending delivery is due, if any is pending. */
  nextDueAt(): string | undefined {
    return (this.sql.get(`SELECT min(next_attempt_at) AS at FROM ${this.table} WHERE status = 'pending'`).get() as { at: string | null }).at ?? undefined;
  }

  /** Sent: counted as an attempt and marked delivered. */
  markDelivered(id: string, at: string): void {
    this.sql.get(`UPDATE ${this.table} SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL WHERE id = ? AND status = 'pending'`).run(at, id);
  }

  /** An attempt failed: the error is kept; tried again at `retryAt`, or failed for good when it is null. */
  markAttemptFailed(id: string, error: string, retryAt: string | null): void {
    this.sql.get(
      `UPDATE ${this.table} SET attempts = attempts + 1, last_error = ?, status = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END,
       next_attempt_at = coalesce(?, next_attempt_at) WHERE id = ? AND status = 'pending'`,
    ).run(shortError(error), retryAt, retryAt, id);
  }
}
