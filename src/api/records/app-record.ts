/**
 * @module Apps between REST and manifests: the record (with the app's stable URL and current
 * deployment) and the App manifest a create or update body becomes.
 */
import type { AppSpec } from '../../model/generated/kinds.js';
import type { Manifest, StoredResource } from '../../model/resource.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import type { ResourceLookup } from './lookup.js';

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

export type AppUpdateBody = Partial<Omit<AppCreateBody, 'name' | 'server_id'>>;

export function appRecord(r: StoredResource<'App'>, lookup: ResourceLookup, currentDeploymentId: string | null): AppRecord {
  const url = r.status.endpoints?.url;
  const { source: owner, ...base } = baseRecord(r);
  return {
    ...base,
    managed_by: owner,
    server_id: lookup.idOf('Server', r.spec.server, r.namespace),
    source: r.spec.source,
    build: r.spec.build ?? null,
    command: r.spec.command ?? null,
    port: r.spec.port ?? null,
    env: r.spec.env ?? {},
    database_ids: (r.spec.databases ?? []).map((name) => lookup.idOf('Database', name, r.namespace)).filter((id): id is string => id !== null),
    health_check_path: r.spec.healthCheck?.path ?? null,
    state: r.spec.state ?? 'running',
    url: typeof url === 'string' ? url : null,
    current_deployment_id: currentDeploymentId,
  };
}

/** Fields shared by create and update, applied onto `spec`. */
function applyFields(spec: AppSpec, body: AppUpdateBody, databaseNames: string[] | undefined): void {
  if (body.source !== undefined) spec.source = body.source;
  if (body.build !== undefined) spec.build = body.build;
  if (body.command !== undefined) spec.command = body.command;
  if (body.port !== undefined) spec.port = body.port;
  if (body.env !== undefined) spec.env = body.env;
  if (databaseNames !== undefined) spec.databases = databaseNames;
  if (body.health_check_path !== undefined) spec.healthCheck = { ...spec.healthCheck, path: body.health_check_path };
  if (body.state !== undefined) spec.state = body.state;
}

export function appManifest(body: AppCreateBody, serverName: string, databaseNames: string[]): Manifest<'App'> {
  const spec: AppSpec = { server: serverName, source: body.source };
  applyFields(spec, body, databaseNames.length > 0 ? databaseNames : undefined);
  return { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedAppManifest(current: StoredResource<'App'>, body: AppUpdateBody, databaseNames: string[] | undefined, annotations?: Record<string, string>): Manifest<'App'> {
  const spec: AppSpec = structuredClone(current.spec);
  applyFields(spec, body, databaseNames);
  if (spec.databases?.length === 0) delete spec.databases;
  return { apiVersion: 'cairn.dev/v1', kind: 'App', metadata: keptMetadata(current, body.labels, annotations), spec };
}
