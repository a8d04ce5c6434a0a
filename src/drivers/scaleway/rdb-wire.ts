/**
 * @module Scaleway's Managed Database (RDB API v1) JSON, read into cairn's driver types: a
 * Database Instance (status, node type, volume, engine `PostgreSQL-<major>`, the idempotency key
 * from its tags, `endpoints[0]` for where to reach it), the engines and node types a region
 * offers, and Scaleway's password rule. cairn's id of an instance is `<region>/<uuid>`, since
 * every RDB path needs the region.
 */
import type { DatabaseObserved, VendorDatabaseStatus } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import type { WireReader } from '../kit/wire-reader.js';
import { keyFromTags } from './key-tag.js';

/** The regions of Scaleway's RDB API (a region, not a zone). */
export const RDB_REGIONS = ['fr-par', 'nl-ams', 'pl-waw'] as const;

/** The default database Scaleway makes in every new PostgreSQL instance. */
export const DEFAULT_DATABASE = 'rdb';

/** The user cairn creates every instance with (`user_name`): the only user it manages. */
export const CAIRN_USER = 'cairn';

/**
 * An instance's status as cairn's: it takes connections while configuring (an upgrade), taking
 * snapshots, or being healed, so those count as available (`update` waits for `ready` itself).
 */
const STATUS: Readonly<Record<string, VendorDatabaseStatus>> = {
  provisioning: 'creating',
  initializing: 'creating',
  ready: 'available',
  configuring: 'available',
  snapshotting: 'available',
  autohealing: 'available',
  restarting: 'available',
  backuping: 'backing_up',
  deleting: 'deleting',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GB = 1000 * 1000 * 1000;

/** cairn's id of an instance (or a backup): its region and UUID. */
export function rdbIdOf(region: string, id: string): string {
  return `${region}/${id}`;
}

/** The region and UUID in cairn's id, or undefined when it is not one. */
export function parseRdbId(externalId: string): { region: string; id: string } | undefined {
  const slash = externalId.indexOf('/');
  if (slash < 0) return undefined;
  const region = externalId.slice(0, slash);
  const id = externalId.slice(slash + 1);
  return (RDB_REGIONS as readonly string[]).includes(region) && UUID.test(id) ? { region, id } : undefined;
}

/** cairn's PostgreSQL major version as Scaleway's engine name (`16` → `PostgreSQL-16`). */
export function engineName(version: string): string {
  return `PostgreSQL-${version}`;
}

/** The PostgreSQL versions a region offers for new instances, from `ListDatabaseEngines`. */
export function readPostgresVersions(engines: WireReader[]): string[] {
  const postgres = engines.find((engine) => engine.string('name') === 'PostgreSQL');
  if (!postgres) return [];
  return postgres
    .array('versions')
    .filter((v) => v.raw('disabled') !== true)
    .map((v) => v.string('version'));
}

/** The node types a region offers (not disabled, not out of stock), from `ListNodeTypes`. */
export function readNodeTypes(nodeTypes: WireReader[]): string[] {
  return nodeTypes.filter((t) => t.raw('disabled') !== true && t.raw('stock_status') !== 'out_of_stock').map((t) => t.string('name'));
}

export function readInstance(instance: WireReader): DatabaseObserved {
  const region = instance.string('region');
  const engine = instance.string('engine');
  const match = /^PostgreSQL-(.+)$/.exec(engine);
  if (!match?.[1]) throw new Error(`scaleway: database instance ${instance.string('id')} runs ${engine}, which cairn does not manage`);
  const status = instance.string('status');
  const volume = instance.raw('volume') === null || instance.raw('volume') === undefined ? undefined : instance.object('volume');
  const volumeBytes = volume?.numberOrNull('size') ?? null;
  const endpoint = firstEndpoint(instance);
  return {
    id: rdbIdOf(region, instance.string('id')),
    name: instance.string('name'),
    clientToken: keyFromTags(instance.raw('tags') === undefined ? [] : instance.strings('tags')) ?? '',
    serverId: '',
    type: 'postgresql',
    version: match[1],
    storageGb: volumeBytes === null || volumeBytes <= 0 ? null : Math.round(volumeBytes / GB),
    size: instance.string('node_type'),
    status: STATUS[status] ?? 'error',
    host: endpoint?.host ?? null,
    port: endpoint?.port ?? null,
    engineVersion: null,
    ...(STATUS[status] === undefined ? { message: `Scaleway reports the database instance ${status}` } : {}),
  };
}

/** Where the instance takes connections: its first endpoint's address (IP, else host name) and port. */
export function firstEndpoint(instance: WireReader): { host: string; port: number } | undefined {
  const raw = instance.raw('endpoints');
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const [first] = instance.array('endpoints');
  if (!first) return undefined;
  const host = first.stringOrNull('ip') ?? first.stringOrNull('hostname');
  const port = first.numberOrNull('port');
  return host === null || port === null ? undefined : { host, port };
}

/** Whether Scaleway reports the instance `ready` (done creating, upgrading, backing up). */
export function isReady(instance: WireReader): boolean {
  return instance.raw('status') === 'ready';
}

/** `storageGb` as Scaleway's `volume_size` (bytes; Scaleway counts 10^9 bytes to a GB). */
export function volumeBytes(storageGb: number): number {
  return storageGb * GB;
}

/**
 * Scaleway's rule for a user's password (CreateInstance, UpdateUser): 8 to 128 characters with
 * at least one digit, one upper-case letter, one lower-case letter and one other character.
 * cairn's generated passwords always meet it; one that does not is refused before sending.
 */
export function checkPassword(password: string, doing: string): void {
  const fits = password.length >= 8 && password.length <= 128 && /[0-9]/.test(password) && /[A-Z]/.test(password) && /[a-z]/.test(password) && /[^0-9A-Za-z]/.test(password);
  if (!fits) {
    throw new VendorRejectedError(`scaleway: ${doing}: Scaleway takes a password of 8 to 128 characters with at least one digit, one upper-case letter, one lower-case letter and one special character; this one does not fit`, { field: 'password' });
  }
}
