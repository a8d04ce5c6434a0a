/**
 * @module Atlas clusters, snapshots and the provider catalog read into cairn's driver types, and
 * the names cairn gives them. A cluster's name is made from cairn's idempotency key alone
 * (`cairn-` and 16 hex digits of its SHA-256: Atlas names are unique in a project, so the name
 * is the idempotency, and short enough for Atlas's 23-character hostname prefix); its tags carry
 * the key itself (`cairn-key`), `managed-by: cairn` and the Database's name. A region slug is
 * Atlas's provider and region name, `AWS:EU_CENTRAL_1`; a size is Atlas's instance size (M10…).
 */
import { createHash } from 'node:crypto';
import type { BackupObserved, DatabaseObserved, VendorBackupStatus, VendorDatabaseStatus } from '../contract.js';
import type { WireReader } from '../kit/wire-reader.js';

export const KEY_TAG = 'cairn-key';
export const NAME_TAG = 'cairn-name';
export const MANAGED_TAG = { key: 'managed-by', value: 'cairn' } as const;
/** The port of a cluster's members (Atlas serves every cluster on it). */
export const MONGODB_PORT = 27017;
/** The database cairn's user authenticates against: Atlas keeps its database users in `admin`. */
export const AUTH_DATABASE = 'admin';
/** What a snapshot's description starts with: the rest is the backup's idempotency key. */
const SNAPSHOT_KEY_PREFIX = 'cairn-key:';

/** The cluster (and its database user's) name for cairn's key. */
export function clusterNameFor(key: string): string {
  return `cairn-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** A region slug cut into Atlas's provider and region name; undefined when it is not `PROVIDER:REGION`. */
export function splitRegion(slug: string): { providerName: string; regionName: string } | undefined {
  const match = /^(AWS|GCP|AZURE):([A-Z0-9_]+)$/.exec(slug);
  return match ? { providerName: match[1] ?? '', regionName: match[2] ?? '' } : undefined;
}

/**
 * Atlas's states as cairn's: an `UPDATING` or `REPAIRING` cluster keeps serving (update follows
 * it to `IDLE` itself).
 */
const STATUS: Readonly<Record<string, VendorDatabaseStatus>> = {
  CREATING: 'creating',
  IDLE: 'available',
  UPDATING: 'available',
  REPAIRING: 'available',
  DELETING: 'deleting',
};

export function tagsOf(cluster: WireReader): Map<string, string> {
  const tags = cluster.raw('tags') === undefined ? [] : cluster.array('tags');
  return new Map(tags.map((tag) => [tag.string('key'), tag.string('value')]));
}

/** The cluster's one region config (cairn makes one replica set in one region). */
export function regionConfigOf(cluster: WireReader): WireReader | undefined {
  const specs = cluster.raw('replicationSpecs') === undefined ? [] : cluster.array('replicationSpecs');
  const configs = specs[0]?.raw('regionConfigs') === undefined ? [] : (specs[0]?.array('regionConfigs') ?? []);
  return configs[0];
}

/** The host of `mongodb+srv://host` (the cluster's SRV name), or null before Atlas gives one. */
function srvHost(cluster: WireReader): string | null {
  if (cluster.raw('connectionStrings') === undefined) return null;
  const srv = cluster.object('connectionStrings').stringOrNull('standardSrv');
  if (srv === null) return null;
  return /^mongodb\+srv:\/\/([^/?]+)/.exec(srv)?.[1] ?? null;
}

export function readCluster(cluster: WireReader): DatabaseObserved {
  const state = cluster.raw('stateName') === undefined ? 'CREATING' : cluster.string('stateName');
  const config = regionConfigOf(cluster);
  const electable = config?.raw('electableSpecs') === undefined ? undefined : config.object('electableSpecs');
  const disk = electable?.numberOrNull('diskSizeGB') ?? null;
  const host = srvHost(cluster);
  return {
    id: cluster.string('name'),
    name: tagsOf(cluster).get(NAME_TAG) ?? cluster.string('name'),
    clientToken: tagsOf(cluster).get(KEY_TAG) ?? '',
    serverId: '',
    type: 'mongodb',
    version: cluster.raw('mongoDBMajorVersion') === undefined ? '' : cluster.string('mongoDBMajorVersion'),
    storageGb: disk === null ? null : Math.round(disk),
    ...(electable?.raw('instanceSize') === undefined ? {} : { size: electable.string('instanceSize') }),
    status: STATUS[state] ?? 'error',
    host,
    port: host === null ? null : MONGODB_PORT,
    engineVersion: cluster.stringOrNull('mongoDBVersion'),
    ...(STATUS[state] === undefined ? { message: `Atlas reports the cluster ${state}` } : {}),
  };
}

export function isIdle(cluster: WireReader): boolean {
  return cluster.raw('stateName') === 'IDLE';
}

const SNAPSHOT_STATUS: Readonly<Record<string, VendorBackupStatus>> = { queued: 'pending', inProgress: 'running', completed: 'completed', failed: 'failed' };

/** A snapshot's description for backup `key`. */
export function snapshotDescription(key: string): string {
  return `${SNAPSHOT_KEY_PREFIX}${key}`;
}

/** The backup key in a snapshot's description, if cairn took it. */
export function keyOfSnapshot(snapshot: WireReader): string | undefined {
  const description = snapshot.stringOrNull('description');
  return description?.startsWith(SNAPSHOT_KEY_PREFIX) ? description.slice(SNAPSHOT_KEY_PREFIX.length) : undefined;
}

/** A backup's external id: the cluster's name and the snapshot's id (Atlas reaches a snapshot through its cluster). */
export function backupId(clusterName: string, snapshotId: string): string {
  return `${clusterName}/${snapshotId}`;
}

export function splitBackupId(externalId: string): { clusterName: string; snapshotId: string } | undefined {
  const match = /^([a-zA-Z0-9][a-zA-Z0-9-]*)\/([a-f0-9]{24})$/.exec(externalId);
  return match ? { clusterName: match[1] ?? '', snapshotId: match[2] ?? '' } : undefined;
}

export function readSnapshot(clusterName: string, snapshot: WireReader): BackupObserved {
  const status = SNAPSHOT_STATUS[snapshot.raw('status') === undefined ? 'queued' : snapshot.string('status')] ?? 'failed';
  const createdAt = snapshot.stringOrNull('createdAt') ?? new Date(0).toISOString();
  return {
    id: backupId(clusterName, snapshot.string('id')),
    clientToken: keyOfSnapshot(snapshot) ?? '',
    databaseId: clusterName,
    status,
    sizeBytes: snapshot.numberOrNull('storageSizeBytes'),
    // Atlas gives no checksum of a snapshot's content.
    checksum: null,
    createdAt,
    completedAt: status === 'completed' ? createdAt : null,
    message: status === 'failed' ? 'Atlas reports the snapshot failed' : null,
  };
}

/** One page of an Atlas list: its results, and the next page number when its `links` name a `next`. */
export function readPage(body: WireReader, pageNum: number): { items: WireReader[]; next: string | undefined } {
  const links = body.raw('links') === undefined ? [] : body.array('links');
  const hasNext = links.some((link) => link.stringOrNull('rel') === 'next');
  return { items: body.raw('results') === undefined ? [] : body.array('results'), next: hasNext ? String(pageNum + 1) : undefined };
}
