/**
 * @module Databases between REST and manifests: the record (no password: that is what the
 * credentials endpoint is for) and the Database manifest a create or update body becomes.
 */
import type { DatabaseSpec } from '../../model/generated/kinds.js';
import { effectiveDeletionPolicy, type Manifest, type StoredResource } from '../../model/resource.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import type { ResourceLookup } from './lookup.js';
import { applyBodyFields, specRecordFields } from './rest-fields.js';

export interface DatabaseRecord extends BaseRecord {
  type: 'postgresql' | 'mongodb';
  server_id: string | null;
  managed: boolean;
  provider_id: string | null;
  region: string | null;
  size: string | null;
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
  server_id?: string;
  managed?: boolean;
  provider_id?: string;
  region?: string;
  size?: string;
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

type SpecRecordField = 'type' | 'managed' | 'region' | 'size' | 'version' | 'storage_gb' | 'backup_schedule' | 'backup_retention' | 'deletion_policy';

export function databaseRecord(r: StoredResource<'Database'>, lookup: ResourceLookup): DatabaseRecord {
  const endpoints = r.status.endpoints ?? {};
  const engineVersion = r.status.details?.engineVersion;
  return {
    ...baseRecord(r),
    ...(specRecordFields('Database', r.spec) as Pick<DatabaseRecord, SpecRecordField>),
    server_id: r.spec.server === undefined ? null : lookup.idOf('Server', r.spec.server, r.namespace),
    provider_id: r.spec.provider === undefined ? null : lookup.idOf('Provider', r.spec.provider, r.namespace),
    deletion_policy: effectiveDeletionPolicy(r),
    host: typeof endpoints.host === 'string' ? endpoints.host : null,
    port: typeof endpoints.port === 'number' ? endpoints.port : null,
    engine_version: typeof engineVersion === 'string' ? engineVersion : null,
  };
}

/** The manifest of a create body: on the server named, or (managed) at the provider named. */
export function databaseManifest(body: DatabaseCreateBody, home: { server?: string; provider?: string }): Manifest<'Database'> {
  const spec: DatabaseSpec = { type: body.type, version: body.version, ...(home.server !== undefined ? { server: home.server } : {}), ...(home.provider !== undefined ? { provider: home.provider } : {}) };
  applyBodyFields('Database', 'create', body, spec);
  return { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedDatabaseManifest(current: StoredResource<'Database'>, body: DatabaseUpdateBody): Manifest<'Database'> {
  const spec: DatabaseSpec = structuredClone(current.spec);
  applyBodyFields('Database', 'update', body, spec);
  return { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: keptMetadata(current, body.labels), spec };
}
