/**
 * @module Apps between REST and manifests: the record (with the app's stable URL and current
 * deployment) and the App manifest a create or update body becomes.
 */
import type { AppSpec } from '../../model/generated/kinds.js';
import type { Manifest, StoredResource } from '../../model/resource.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import type { ResourceLookup } from './lookup.js';
import { applyBodyFields, specRecordFields } from './rest-fields.js';

export type AppSourceBody = { git: { url: string; ref?: string; path?: string } } | { image: string } | { path: string };

/**
 * The app's `source` is where its code comes from (as posted), so the record's owner — `source`
 * on every other record — is `managed_by` here.
 */
export interface AppRecord extends Omit<BaseRecord, 'source'> {
  managed_by: BaseRecord['source'];
  server_id: string | null;
  source: AppSpec['source'];
  build: string | null;
  command: string | null;
  port: number | null;
  env: Record<string, string>;
  database_ids: string[];
  health_check_path: string | null;
  state: 'running' | 'stopped';
  url: string | null;
  current_deployment_id: string | null;
}

export interface AppCreateBody {
  name: string;
  server_id: string;
  source: AppSourceBody;
  build?: string;
  command?: string;
  port?: number;
  env?: Record<string, string>;
  database_ids?: string[];
  health_check_path?: string;
  state?: 'running' | 'stopped';
  labels?: Record<string, string>;
}

/** An update: null takes a clearable field (build, command, port, health_check_path) out of the spec. */
export type AppUpdateBody = Partial<Omit<AppCreateBody, 'name' | 'server_id' | Clearable>> & { [F in Clearable]?: AppCreateBody[F] | null };

type Clearable = 'build' | 'command' | 'port' | 'health_check_path';

export function appRecord(r: StoredResource<'App'>, lookup: ResourceLookup, currentDeploymentId: string | null): AppRecord {
  const url = r.status.endpoints?.url;
  const { source: owner, ...base } = baseRecord(r);
  return {
    ...base,
    managed_by: owner,
    ...(specRecordFields('App', r.spec) as Pick<AppRecord, 'source' | 'build' | 'command' | 'port' | 'env' | 'health_check_path' | 'state'>),
    server_id: lookup.idOf('Server', r.spec.server, r.namespace),
    database_ids: (r.spec.databases ?? []).map((name) => lookup.idOf('Database', name, r.namespace)).filter((id): id is string => id !== null),
    url: typeof url === 'string' ? url : null,
    current_deployment_id: currentDeploymentId,
  };
}

export function appManifest(body: AppCreateBody, serverName: string, databaseNames: string[]): Manifest<'App'> {
  const spec: AppSpec = { server: serverName, source: body.source };
  applyBodyFields('App', 'create', body, spec);
  if (databaseNames.length > 0) spec.databases = databaseNames;
  return { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedAppManifest(current: StoredResource<'App'>, body: AppUpdateBody, databaseNames: string[] | undefined, annotations?: Record<string, string>): Manifest<'App'> {
  const spec: AppSpec = structuredClone(current.spec);
  applyBodyFields('App', 'update', body, spec);
  if (databaseNames !== undefined) spec.databases = databaseNames;
  if (spec.databases?.length === 0) delete spec.databases;
  return { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: keptMetadata(current, body.labels, annotations), spec };
}
