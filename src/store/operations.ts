/**
 * @module Pending operations: written BEFORE a driver is asked to create something, with the
 * deterministic idempotency key it will be created under, so that after a crash the reconciler
 * knows a create may have reached the vendor and looks for it by that key instead of creating
 * a second one.
 */
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export type OperationName = 'create' | 'delete';

export interface PendingOperation {
  uid: string;
  operation: OperationName;
  idempotencyKey: string;
  startedAt: string;
}

export class PendingOperations {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  begin(uid: string, operation: OperationName, idempotencyKey: string): void {
    this.sql
      .get(
        `INSERT INTO pending_operations (uid, operation, idempotency_key, started_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (uid, operation) DO UPDATE SET idempotency_key = excluded.idempotency_key`,
      )
      .run(uid, operation, idempotencyKey, nowIso());
  }

  finish(uid: string, operation: OperationName): void {
    this.sql.get(`DELETE FROM pending_operations WHERE uid = ? AND operation = ?`).run(uid, operation);
  }

  get(uid: string, operation: OperationName): PendingOperation | undefined {
    const row = this.sql
      .get(`SELECT uid, operation, idempotency_key, started_at FROM pending_operations WHERE uid = ? AND operation = ?`)
      .get(uid, operation) as { uid: string; operation: OperationName; idempotency_key: string; started_at: string } | undefined;
    return row && { uid: row.uid, operation: row.operation, idempotencyKey: row.idempotency_key, startedAt: row.started_at };
  }

}
