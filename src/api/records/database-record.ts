/**
 * @module Databases between REST and manifests: the record (no password: that is what the
 * credentials endpoint is for) and the Database manifest a create or update body becomes.
 */
import type { DatabaseSpec } from '../../model/generated/kinds.js';
import { effectiveDeletionPolicy, type Manifest, type StoredResource } from '../../model/resource.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import type { ResourceLookup } from './lookup.js';

export interface DatabaseRecord extends BaseRecord {
  type: 'postgresql' | 'mongodb';
  server_id: string | null;
  version: string;
  storage_gb: number | null;
  backup_schedule: string | null;
  backup_retention: number | null;
  deletion_policy: 'Delete' | 'Orphan';
  host: string | null;
  port: number | null;
  engine_version: string | null;
}

export interface DatabaseCreateBody {
  name: string;
  type: 'postgresql' | 'mongodb';
  server_id: string;
  version: string;
  storage_gb?: number;
  backup_schedule?: string;
  backup_retention?: number;
  deletion_policy?: 'Delete' | 'Orphan';
  labels?: Record<string, string>;
}

export interface DatabaseUpdateBody {
  storage_gb?: number;
  version?: string;
  backup_schedule?: string | null;
  backup_retention?: number;
  deletion_policy?: 'Delete' | 'Orphan';
  labels?: Record<string, string>;
}

export function databaseRecord(r: StoredResource<'Database'>, lookup: ResourceLookup): DatabaseRecord {
  const endpoints = r.status.endpoints ?? {};
  const engineVersion = r.status.details?.engineVersion;
  return {
    ...baseRecord(r),
    type: r.spec.type,
    server_id: lookup.idOf('Server', r.spec.server, r.namespace),
    version: r.spec.version,
    storage_gb: r.spec.storageGb ?? null,
    backup_schedule: r.spec.backup?.schedule ?? null,
    backup_retention: r.spec.backup ? (r.spec.backup.retention ?? 7) : null,
    deletion_policy: effectiveDeletionPolicy(r),
    host: typeof endpoints.host === 'string' ? endpoints.host : null,
    port: typeof endpoints.port === 'number' ? endpoints.port : null,
    engine_version: typeof engineVersion === 'string' ? engineVersion : null,
  };
}

function backupPolicy(schedule: string | null | undefined, retention: number | undefined): DatabaseSpec['backup'] | undefined {
  if (schedule === null || schedule === undefined) return undefined;
  return retention === undefined ? { schedule } : { schedule, retention };
}

export function databaseManifest(body: DatabaseCreateBody, serverName: string): Manifest<'Database'> {
  const spec: DatabaseSpec = { type: body.type, server: serverName, version: body.version };
  if (body.storage_gb !== undefined) spec.storageGb = body.storage_gb;
  const backup = backupPolicy(body.backup_schedule, body.backup_retention);
  if (backup) spec.backup = backup;
  if (body.deletion_policy) spec.deletionPolicy = body.deletion_policy;
  return { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedDatabaseManifest(current: StoredResource<'Database'>, body: DatabaseUpdateBody): Manifest<'Database'> {
  const spec: DatabaseSpec = { ...current.spec };
  if (body.storage_gb !== undefined) spec.storageGb = body.storage_gb;
  if (body.version !== undefined) spec.version = body.version;
  if (body.deletion_policy !== undefined) spec.deletionPolicy = body.deletion_policy;
  if (body.backup_schedule !== undefined || body.backup_retention !== undefined) {
    const schedule = body.backup_schedule === undefined ? current.spec.backup?.schedule : body.backup_schedule;
    const backup = backupPolicy(schedule, body.backup_retention ?? current.spec.backup?.retention);
    if (backup) spec.backup = backup;
    else delete spec.backup;
  }
  return { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: keptMetadata(current, body.labels), spec };
}
