/**
 * @module Backups, deployments and operations (one-off actions) as the API shows them.
 */
import type { ActionRecord, BackupRecord, DeploymentRecord } from '../../store/records.js';

export function backupRecord(b: BackupRecord): Record<string, unknown> {
  return {
    id: b.id,
    database_id: b.databaseUid,
    status: b.status,
    kind: b.kind,
    size_bytes: b.sizeBytes,
    checksum: b.checksum,
    message: b.message,
    created_at: b.createdAt,
    completed_at: b.completedAt,
  };
}

export function deploymentRecord(d: DeploymentRecord): Record<string, unknown> {
  return {
    id: d.id,
    app_id: d.appUid,
    status: d.status,
    version: d.version,
    trigger: d.trigger,
    ref: d.ref,
    commit: d.commit,
    message: d.message,
    build_output_tail: d.buildOutputTail,
    created_at: d.createdAt,
    started_at: d.startedAt,
    finished_at: d.finishedAt,
    duration_ms: d.startedAt !== null && d.finishedAt !== null ? Date.parse(d.finishedAt) - Date.parse(d.startedAt) : null,
  };
}

export function operationRecord(a: ActionRecord): Record<string, unknown> {
  return {
    id: a.id,
    type: a.type,
    status: a.status,
    resource_id: a.uid,
    message: a.message,
    created_at: a.createdAt,
    finished_at: a.finishedAt,
  };
}
