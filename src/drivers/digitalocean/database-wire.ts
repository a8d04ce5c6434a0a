/**
 * @module DigitalOcean's managed database clusters, read into cairn's driver types: the engine
 * slugs (`pg`, `mongodb`), a cluster's status, size, storage, version, the idempotency key from
 * its tags and where to reach it (`connection`), and the offer of `/v2/databases/options`
 * (regions, versions and single-node sizes per engine).
 */
import type { DatabaseEndpoint, DatabaseObserved, VendorDatabaseStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';
import { keyFromTags } from './key-tag.js';

export type ManagedEngine = DatabaseObserved['type'];

/** cairn's engine names as DigitalOcean's engine slugs. */
export const ENGINE_SLUG: Readonly<Record<ManagedEngine, string>> = { postgresql: 'pg', mongodb: 'mongodb' };

/**
 * A cluster's status as cairn's: it takes connections while it is resized or moved, so those
 * count as available (`update` waits for `online` itself); a fork is a cluster still being made.
 */
const STATUS: Readonly<Record<string, VendorDatabaseStatus>> = {
  creating: 'creating',
  forking: 'creating',
  online: 'available',
  resizing: 'available',
  migrating: 'available',
};

const MIB_PER_GB = 1024;

/** The engine's offer at DigitalOcean, from `/v2/databases/options`. */
export interface EngineOffer {
  regions: string[];
  versions: string[];
  /** The node sizes of a one-node cluster (the only layout cairn makes). */
  sizes: string[];
}

export function readEngineOffer(options: WireReader, engine: ManagedEngine): EngineOffer | undefined {
  const slug = ENGINE_SLUG[engine];
  if (options.raw(slug) === undefined || options.raw(slug) === null) return undefined;
  const offer = options.object(slug);
  const layouts = offer.raw('layouts') === undefined ? [] : offer.array('layouts');
  const single = layouts.find((layout) => layout.number('num_nodes') === 1);
  return {
    regions: offer.raw('regions') === undefined ? [] : offer.strings('regions'),
    versions: offer.raw('versions') === undefined ? [] : offer.strings('versions'),
    sizes: single ? single.strings('sizes') : [],
  };
}

function engineOf(cluster: WireReader): ManagedEngine {
  const slug = cluster.string('engine');
  const engine = (Object.keys(ENGINE_SLUG) as ManagedEngine[]).find((e) => ENGINE_SLUG[e] === slug);
  if (engine === undefined) throw new Error(`digitalocean: database cluster ${cluster.string('id')} runs ${slug}, which cairn does not manage`);
  return engine;
}

/** The cluster's `connection`, when DigitalOcean has given it one yet. */
function connectionOf(cluster: WireReader): WireReader | undefined {
  const raw = cluster.raw('connection');
  return raw === undefined || raw === null ? undefined : cluster.object('connection');
}

export function readCluster(cluster: WireReader): DatabaseObserved {
  const connection = connectionOf(cluster);
  const storageMib = cluster.numberOrNull('storage_size_mib');
  const status = cluster.raw('status') === undefined ? 'creating' : cluster.string('status');
  const tags = cluster.raw('tags') === undefined || cluster.raw('tags') === null ? [] : cluster.strings('tags');
  return {
    id: cluster.string('id'),
    name: cluster.string('name'),
    clientToken: keyFromTags(tags) ?? '',
    serverId: '',
    type: engineOf(cluster),
    version: cluster.raw('version') === undefined ? '' : cluster.string('version'),
    storageGb: storageMib === null || storageMib <= 0 ? null : Math.round(storageMib / MIB_PER_GB),
    size: cluster.string('size'),
    status: STATUS[status] ?? 'error',
    host: connection?.raw('host') === undefined ? null : connection.string('host'),
    port: connection?.raw('port') === undefined ? null : connection.number('port'),
    engineVersion: cluster.raw('semantic_version') === undefined ? null : cluster.string('semantic_version'),
    ...(STATUS[status] === undefined ? { message: `DigitalOcean reports the cluster ${status}` } : {}),
  };
}

/** Whether DigitalOcean reports the cluster `online` (done creating, resizing or moving). */
export function isOnline(cluster: WireReader): boolean {
  return cluster.raw('status') === 'online';
}

/** Where to reach the cluster and as whom, with the password DigitalOcean chose for its default user. */
export function readEndpoint(cluster: WireReader): DatabaseEndpoint {
  const id = cluster.string('id');
  const connection = connectionOf(cluster);
  if (connection === undefined || connection.raw('host') === undefined || connection.raw('password') === undefined) {
    throw new Error(`digitalocean: database cluster ${id} has no connection details yet (or the token lacks the database:view_credentials scope)`);
  }
  return {
    host: connection.string('host'),
    port: connection.number('port'),
    username: connection.string('user'),
    database: connection.string('database'),
    vendorPassword: connection.string('password'),
  };
}

/** `storageGb` as DigitalOcean's `storage_size_mib`. */
export function storageMib(storageGb: number): number {
  return storageGb * MIB_PER_GB;
}
