/**
 * @module IONOS's PostgreSQL clusters (DBaaS) read into cairn's driver types: the state
 * (`metadata.state`), cores and RAM as cairn's size, storage, version, the idempotency key from
 * the display name (`<name> [cairn-key=<key>]`, server-name.ts) and where to reach it
 * (`properties.dnsName`, port 5432).
 */
import type { DatabaseObserved, VendorDatabaseStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { shapeSlug, storageGbOf } from './database-shapes.js';
import { readServerName } from './server-name.js';

export const POSTGRES_PORT = 5432;

/**
 * IONOS's cluster states as cairn's. BUSY is a cluster being made or changed: cairn's `update`
 * waits for AVAILABLE itself, so BUSY reads as still being created.
 */
const STATE: Readonly<Record<string, VendorDatabaseStatus>> = {
  AVAILABLE: 'available',
  BUSY: 'creating',
  DESTROYING: 'deleting',
};

export function clusterState(cluster: WireReader): string {
  const metadata = cluster.raw('metadata') === undefined ? undefined : cluster.object('metadata');
  return metadata?.stringOrNull('state') ?? 'UNKNOWN';
}

export function readPostgresCluster(cluster: WireReader): DatabaseObserved {
  const properties = cluster.object('properties');
  const { name, key } = readServerName(properties.string('displayName'));
  const state = clusterState(cluster);
  const host = properties.stringOrNull('dnsName');
  const version = properties.stringOrNull('postgresVersion') ?? '';
  const status = STATE[state] ?? 'error';
  return {
    id: cluster.string('id'),
    name,
    clientToken: key ?? '',
    serverId: '',
    type: 'postgresql',
    version,
    storageGb: properties.raw('storageSize') === undefined ? null : storageGbOf(properties.number('storageSize')),
    size: shapeSlug(properties.number('cores'), properties.number('ram')),
    status,
    host: host === '' ? null : host,
    port: host === null || host === '' ? null : POSTGRES_PORT,
    engineVersion: version === '' ? null : version,
    ...(STATE[state] === undefined ? { message: `IONOS reports the cluster ${state}` } : {}),
  };
}
