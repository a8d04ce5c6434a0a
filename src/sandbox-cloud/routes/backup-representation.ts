/**
 * @module Sandbox backups and restores as the API shows them. A backup is `pending` while it
 * waits behind what its database was already doing, `running` while it is stored, then
 * `completed`; its size and checksum are shown once it has completed.
 */
import type { BackupRow } from '../store/backups-table.js';
import type { RestoreRow } from '../store/restores-table.js';

export type OperationStatus = 'pending' | 'running' | 'completed';

export interface BackupBody {
  id: string;
  client_token: string;
  database_id: string;
  database_type: 'postgresql' | 'mongodb';
  status: OperationStatus | 'failed';
  size_bytes: number | null;
  checksum: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** Why it failed; the sandbox's backups do not fail, so always null. */
  message: string | null;
}

export interface RestoreBody {
  id: string;
  client_token: string;
  database_id: string;
  backup_id: string;
  status: OperationStatus;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

function statusOf(op: { started_at_ms: number; completed_at_ms: number }, nowMs: number): OperationStatus {
  if (nowMs < op.started_at_ms) return 'pending';
  return nowMs < op.completed_at_ms ? 'running' : 'completed';
}

/** The time as RFC 3339 once it has come, else null. */
function reached(ms: number, nowMs: number): string | null {
  return ms <= nowMs ? new Date(ms).toISOString() : null;
}

export function backupBody(row: BackupRow, nowMs: number): BackupBody {
  const status = statusOf(row, nowMs);
  const done = status === 'completed';
  return {
    id: row.id,
    client_token: row.client_token,
    database_id: row.database_id,
    database_type: row.database_type,
    status,
    size_bytes: done ? row.size_bytes : null,
    checksum: done ? row.checksum : null,
    created_at: new Date(row.created_at_ms).toISOString(),
    started_at: reached(row.started_at_ms, nowMs),
    completed_at: reached(row.completed_at_ms, nowMs),
    message: null,
  };
}

export function restoreBody(row: RestoreRow, nowMs: number): RestoreBody {
  return {
    id: row.id,
    client_token: row.client_token,
    database_id: row.database_id,
    backup_id: row.backup_id,
    status: statusOf(row, nowMs),
    created_at: new Date(row.created_at_ms).toISOString(),
    started_at: reached(row.started_at_ms, nowMs),
    completed_at: reached(row.completed_at_ms, nowMs),
  };
}
