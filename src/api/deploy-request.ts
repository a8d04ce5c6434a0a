/**
 * @module The seed's one-call deploy (`POST /deploy`, `cairn deploy`) turned into manifests: a
 * server, database or app by provider, region and size; a database or app without `server_id`
 * gets a server of its own first. The region and size are checked against the provider's
 * catalogue before anything is written.
 */
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../model/errors.js';
import type { AnyManifest, AnyStoredResource, StoredResource } from '../model/resource.js';
import type { Store } from '../store/store.js';
import type { ProviderCatalogs } from './provider-catalog.js';
import { appManifest, appRecord, type AppCreateBody } from './records/app-record.js';
import { databaseManifest, databaseRecord } from './records/database-record.js';
import { ResourceLookup } from './records/lookup.js';
import { checkManifest } from './records/manifest-check.js';
import { serverManifest, serverRecord } from './records/server-record.js';
import { validateBody } from './request-validation.js';

/** The app fields a deploy takes, as `POST /apps` takes them (all optional here; `source` is checked for an app). */
type DeployAppFields = Partial<Pick<AppCreateBody, 'source' | 'build' | 'command' | 'port' | 'env' | 'database_ids' | 'health_check_path'>>;

export interface DeployBody extends DeployAppFields {
  type: 'server' | 'database' | 'app';
  provider: string;
  /** Required for a server, and for a database or app without `server_id` (the document says so). */
  region?: string;
  size?: string;
  name?: string;
  image?: string;
  server_id?: string;
  labels?: Record<string, string>;
  engine?: 'postgresql' | 'mongodb';
  version?: string;
  storage_gb?: number;
}

export type DeployedResource = StoredResource<'Server'> | StoredResource<'Database'> | StoredResource<'App'>;

function required<T>(value: T | undefined, field: string, type: string): T {
  if (value === undefined) {
    const message = `is required when type is ${type}`;
    throw new ValidationError(`${field}: ${message}`, [{ pointer: `/${field}`, message }]);
  }
  return value;
}

/** The address a deploy answers with: a server's IPv4, a database's host:port, an app's URL. */
export function endpointOf(r: AnyStoredResource): string | null {
  const e = r.status.endpoints ?? {};
  if (r.kind === 'Server') return typeof e.ipv4 === 'string' ? e.ipv4 : null;
  if (r.kind === 'Database') return typeof e.host === 'string' && typeof e.port === 'number' ? `${e.host}:${e.port}` : null;
  if (r.kind === 'App') return typeof e.url === 'string' ? e.url : null;
  return null;
}

/** The manifests a deploy request makes, the deployed resource's last (the body is checked against the API's document first). */
export async function deployManifests(store: Store, tenant: string, request: unknown, catalogs: ProviderCatalogs): Promise<AnyManifest[]> {
  const body = validateBody<DeployBody>('post', '/deploy', request);
  const lookup = new ResourceLookup(store, tenant);
  const providerId = lookup.idOf('Provider', body.provider) ?? body.provider;
  const provider = lookup.referenced('Provider', providerId, '/provider');
  const name = body.name ?? `${body.type}-${randomBytes(3).toString('hex')}`;
  const manifests: AnyManifest[] = [];
  let serverName: string | undefined;
  if (body.type === 'server' || body.server_id === undefined) {
    await catalogs.check(provider, body.region, body.size);
    serverName = body.type === 'server' ? name : `${name}-server`;
    manifests.push(checkManifest(serverManifest({
      name: serverName, provider_id: provider.uid, region: body.region, size: body.size,
      ...(body.image !== undefined ? { image: body.image } : {}), ...(body.labels ? { labels: body.labels } : {}),
    }, provider.name)));
  } else {
    serverName = lookup.referenced('Server', body.server_id, '/server_id').name;
  }
  if (body.type === 'database') {
    manifests.push(checkManifest(databaseManifest({
      name, type: required(body.engine, 'engine', 'database'), server_id: '', version: required(body.version, 'version', 'database'),
      ...(body.storage_gb !== undefined ? { storage_gb: body.storage_gb } : {}), ...(body.labels ? { labels: body.labels } : {}),
    }, { server: serverName })));
  } else if (body.type === 'app') {
    const databases = (body.database_ids ?? []).map((id, i) => lookup.referenced('Database', id, `/database_ids/${i}`).name);
    const { type: _type, provider: _provider, region: _region, size: _size, image: _image, engine: _engine, version: _version, storage_gb: _storage, ...appFields } = body;
    manifests.push(checkManifest(appManifest({ ...appFields, name, server_id: '', source: required(body.source, 'source', 'app') }, serverName, databases)));
  }
  return manifests;
}

/** Records a deploy's manifests in one transaction and answers the deployed resource (the last). */
export function recordDeploy(store: Store, tenant: string, manifests: readonly AnyManifest[]): DeployedResource {
  return store.transaction(() => {
    let last: AnyStoredResource | undefined;
    for (const manifest of manifests) last = store.resources.create(tenant, 'api', manifest);
    return last as DeployedResource;
  });
}

/** The deployed resource as the REST API answers it, with its deploy `endpoint` (`cairn deploy -o json`). */
export function deployedRecord(store: Store, tenant: string, r: DeployedResource): Record<string, unknown> {
  const lookup = new ResourceLookup(store, tenant);
  const record = r.kind === 'Server' ? serverRecord(r, lookup)
    : r.kind === 'Database' ? databaseRecord(r, lookup)
      : appRecord(r, lookup, store.deployments.current(r.uid)?.id ?? null);
  return { ...record, endpoint: endpointOf(r) };
}
