/**
 * @module Atlas clusters as cairn's managed MongoDB (DatabaseRuntime): one three-member replica
 * set per Database, in one region. The cluster is named from cairn's idempotency key
 * (cluster-wire.ts), so a create first reads that name and a create whose answer was lost is
 * found, never made twice (Atlas itself refuses a second cluster of the same name: 409, read back
 * too). cairn's password goes to a database user of the same name scoped to the cluster
 * (`createDatabaseUser`; `setPassword` is `updateDatabaseUser`). A new instance size, disk size
 * or major version is changed in place (`updateCluster`) and followed until the cluster is IDLE.
 * Backups are on-demand snapshots (`takeSnapshot`), found again by their key in the snapshot's
 * description; a restore is an automated restore job into the cluster; a deleted cluster keeps
 * its snapshots (`retainBackups=true`), since cairn's backups outlive their database.
 */
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef } from '../contract.js';
import { VendorRejectedError } from '../errors.js';
import { followAction } from '../kit/follow-action.js';
import { readAllPages } from '../kit/pagination.js';
import type { VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';
import type { AtlasCatalog } from './catalog.js';
import {
  AUTH_DATABASE, KEY_TAG, MANAGED_TAG, MONGODB_PORT, NAME_TAG, clusterNameFor, isIdle, keyOfSnapshot, readCluster, readPage, readSnapshot,
  regionConfigOf, snapshotDescription, splitBackupId, splitRegion, tagsOf,
} from './cluster-wire.js';
import { ATLAS_VERSION_2023_01_01, ATLAS_VERSION_2023_02_01, ATLAS_VERSION_2024_08_05, ATLAS_VERSION_2024_10_23, type AtlasProject } from './project.js';

const id = encodeURIComponent;
/** The tag a restored cluster carries: the restore's key and Atlas's restore job id, `<key> <jobId>`. */
const RESTORE_TAG = 'cairn-restore';
/** How long Atlas keeps an on-demand snapshot (cairn's retention deletes them sooner). */
const SNAPSHOT_RETENTION_DAYS = 365;
const PAGE_SIZE = 100;
/** The replica set's members (Atlas's smallest dedicated layout). */
const MEMBERS = 3;

export class AtlasClusters implements DatabaseRuntime {
  constructor(
    private readonly client: VendorHttpClient,
    private readonly project: AtlasProject,
    private readonly catalog: AtlasCatalog,
    private readonly pollMs: number,
  ) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    const name = ref.externalId ?? (ref.key === '' ? undefined : clusterNameFor(ref.key));
    if (name === undefined) return null;
    const cluster = await this.get(name, `observe cluster ${name}`, options);
    if (!cluster) return null;
    const observed = readCluster(cluster);
    if (ref.externalId === undefined || ref.externalId === null) this.checkOwner(cluster, ref.key);
    const restoring = await this.restoreRunning(cluster, options);
    return restoring ? { ...observed, status: 'restoring' } : observed;
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const name = clusterNameFor(key);
    const doing = `create cluster ${name} for database "${desired.name}"`;
    const existing = await this.get(name, doing, options);
    if (existing) {
      this.checkOwner(existing, key);
      await this.ensureUser(name, desired.password, doing, options);
      return readCluster(existing);
    }
    const { region, size } = this.managedOf(desired);
    if (desired.type !== 'mongodb') throw new VendorRejectedError(`atlas: database "${desired.name}" is ${desired.type}; Atlas runs MongoDB only`, { field: 'type' });
    const place = splitRegion(region);
    if (!place) throw new VendorRejectedError(`atlas: region "${region}" is not PROVIDER:REGION_NAME (e.g. AWS:EU_CENTRAL_1)`, { field: 'region' });
    await this.catalog.check(region, size, doing, options.signal);
    const body = {
      name,
      clusterType: 'REPLICASET',
      mongoDBMajorVersion: desired.version,
      backupEnabled: true,
      tags: [{ key: KEY_TAG, value: key }, { key: NAME_TAG, value: desired.name }, { ...MANAGED_TAG }],
      replicationSpecs: [{
        regionConfigs: [{
          providerName: place.providerName, regionName: place.regionName, priority: 7,
          electableSpecs: { instanceSize: size, nodeCount: MEMBERS, ...(desired.storageGb === null ? {} : { diskSizeGB: desired.storageGb }) },
        }],
      }],
    };
    const answer = await this.client.call({ method: 'POST', path: `${this.project.path}/clusters`, body, headers: ATLAS_VERSION_2024_10_23, doing, accept: [409], signal: options.signal });
    // 409: a cluster of this name exists already (our own create, whose answer was lost, raced this one).
    const cluster = answer.status === 409 ? await this.required(name, doing, options) : WireReader.of(answer.body, `atlas: ${doing}`);
    this.checkOwner(cluster, key);
    await this.ensureUser(name, desired.password, doing, options);
    return readCluster(cluster);
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const { size } = this.managedOf(desired);
    const doing = `change cluster ${externalId} of database "${desired.name}"`;
    const cluster = await this.settled(externalId, doing, options);
    const current = readCluster(cluster);
    const storageChanges = desired.storageGb !== null && current.storageGb !== desired.storageGb;
    if (current.size === size && !storageChanges && current.version === desired.version) return current;
    if (current.size !== size) {
      const config = regionConfigOf(cluster);
      await this.catalog.check(`${config?.string('providerName') ?? ''}:${config?.string('regionName') ?? ''}`, size, doing, options.signal);
    }
    const storage = desired.storageGb === null ? {} : { diskSizeGB: desired.storageGb };
    const specs = (cluster.raw('replicationSpecs') as Array<{ zoneName?: string; regionConfigs?: Array<Record<string, unknown>> }> | undefined) ?? [];
    const body = {
      ...(current.version === desired.version ? {} : { mongoDBMajorVersion: desired.version }),
      replicationSpecs: specs.map((spec) => ({
        ...(spec.zoneName === undefined ? {} : { zoneName: spec.zoneName }),
        regionConfigs: (spec.regionConfigs ?? []).map((config) => ({
          providerName: config['providerName'], regionName: config['regionName'], priority: config['priority'],
          electableSpecs: { instanceSize: size, nodeCount: (config['electableSpecs'] as { nodeCount?: number } | undefined)?.nodeCount ?? MEMBERS, ...storage },
        })),
      })),
    };
    await this.client.call({ method: 'PATCH', path: `${this.project.path}/clusters/${id(externalId)}`, body, headers: ATLAS_VERSION_2024_10_23, doing, signal: options.signal });
    return readCluster(await this.settled(externalId, doing, options));
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({
      method: 'DELETE', path: `${this.project.path}/clusters/${id(externalId)}`, query: { retainBackups: true }, headers: ATLAS_VERSION_2023_02_01,
      doing: `delete cluster ${externalId}`, accept: [404], signal: options.signal,
    });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const doing = `read the connection of cluster ${externalId}`;
    const observed = readCluster(await this.required(externalId, doing, options));
    if (observed.host === null) throw new Error(`atlas: ${doing}: Atlas has given the cluster no connection string yet (it is ${observed.status})`);
    return { host: observed.host, port: MONGODB_PORT, username: externalId, database: AUTH_DATABASE, srv: true };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const doing = `set the password of database user ${externalId}`;
    const answer = await this.client.call({
      method: 'PATCH', path: `${this.project.path}/databaseUsers/${AUTH_DATABASE}/${id(externalId)}`, body: this.user(externalId, password), headers: ATLAS_VERSION_2023_01_01,
      doing, accept: [404], signal: options.signal,
    });
    if (answer.status === 404) await this.createUser(externalId, password, doing, options);
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    const found = await this.findSnapshot(databaseExternalId, key, options);
    if (found) return found;
    const doing = `take a snapshot of cluster ${databaseExternalId}`;
    const answer = await this.client.call({
      method: 'POST', path: `${this.snapshotsPath(databaseExternalId)}`, body: { description: snapshotDescription(key), retentionInDays: SNAPSHOT_RETENTION_DAYS },
      headers: ATLAS_VERSION_2023_01_01, doing, signal: options.signal,
    });
    return readSnapshot(databaseExternalId, WireReader.of(answer.body, `atlas: ${doing}`));
  }

  async observeBackup(ref: ExternalRef, options: CallOptions = {}): Promise<BackupObserved | null> {
    const parts = ref.externalId ? splitBackupId(ref.externalId) : undefined;
    if (parts) {
      const doing = `observe snapshot ${parts.snapshotId} of cluster ${parts.clusterName}`;
      const answer = await this.client.call({
        method: 'GET', path: `${this.snapshotsPath(parts.clusterName)}/${id(parts.snapshotId)}`, headers: ATLAS_VERSION_2023_01_01, doing, accept: [404], signal: options.signal,
      });
      if (answer.status !== 404) return readSnapshot(parts.clusterName, WireReader.of(answer.body, `atlas: ${doing}`));
    }
    if (ref.key === '') return null;
    // Only the key is known (the answer to the snapshot's creation was lost): look through cairn's clusters.
    for (const cluster of await this.clusterNames(options)) {
      const found = await this.findSnapshot(cluster, ref.key, options);
      if (found) return found;
    }
    return null;
  }

  async deleteBackup(backupExternalId: string, options: CallOptions = {}): Promise<void> {
    const parts = splitBackupId(backupExternalId);
    if (!parts) throw new VendorRejectedError(`atlas: "${backupExternalId}" is not a backup cairn took at Atlas (CLUSTER/SNAPSHOT_ID)`);
    await this.client.call({
      method: 'DELETE', path: `${this.snapshotsPath(parts.clusterName)}/${id(parts.snapshotId)}`, headers: ATLAS_VERSION_2023_01_01,
      doing: `delete snapshot ${parts.snapshotId} of cluster ${parts.clusterName}`, accept: [404], signal: options.signal,
    });
  }

  async restore(databaseExternalId: string, backupExternalId: string, key: string, options: CallOptions = {}): Promise<DatabaseObserved> {
    const doing = `restore snapshot ${backupExternalId} into cluster ${databaseExternalId}`;
    const parts = splitBackupId(backupExternalId);
    if (!parts) throw new VendorRejectedError(`atlas: ${doing}: "${backupExternalId}" is not a backup cairn took at Atlas (CLUSTER/SNAPSHOT_ID)`);
    const target = await this.required(databaseExternalId, doing, options);
    const [restoredKey] = (tagsOf(target).get(RESTORE_TAG) ?? '').split(' ');
    if (restoredKey === key) return (await this.observe({ key: '', externalId: databaseExternalId }, options)) ?? readCluster(target);
    const answer = await this.client.call({
      method: 'POST', path: `${this.project.path}/clusters/${id(parts.clusterName)}/backup/restoreJobs`, headers: ATLAS_VERSION_2023_01_01, doing, signal: options.signal,
      body: { deliveryType: 'automated', snapshotId: parts.snapshotId, targetClusterName: databaseExternalId, targetGroupId: this.project.id },
    });
    const job = WireReader.of(answer.body, `atlas: ${doing}`).string('id');
    await this.tag(target, RESTORE_TAG, `${key} ${parts.clusterName}/${job}`, doing, options);
    return { ...readCluster(target), status: 'restoring' };
  }

  private managedOf(desired: DatabaseDesired): NonNullable<DatabaseDesired['managed']> {
    if (desired.managed === undefined) throw new Error(`atlas: database "${desired.name}" has no managed region and size`);
    return desired.managed;
  }

  /** A cluster of cairn's name that carries another key is not this database's: refused, never adopted. */
  private checkOwner(cluster: WireReader, key: string): void {
    const owner = tagsOf(cluster).get(KEY_TAG);
    if (key !== '' && owner !== key) {
      throw new VendorRejectedError(`atlas: cluster ${cluster.string('name')} exists in the project but carries ${owner === undefined ? 'no cairn-key tag' : `the cairn-key "${owner}"`}, not "${key}": cairn does not take it over`);
    }
  }

  private async get(name: string, doing: string, options: CallOptions): Promise<WireReader | null> {
    const answer = await this.client.call({ method: 'GET', path: `${this.project.path}/clusters/${id(name)}`, headers: ATLAS_VERSION_2024_08_05, doing, accept: [404], signal: options.signal });
    return answer.status === 404 ? null : WireReader.of(answer.body, `atlas: ${doing}`);
  }

  private async required(name: string, doing: string, options: CallOptions): Promise<WireReader> {
    const cluster = await this.get(name, doing, options);
    if (!cluster) throw new Error(`atlas: ${doing}: cluster ${name} no longer exists`);
    return cluster;
  }

  /** The cluster once it is IDLE (not creating or changing). */
  private async settled(name: string, doing: string, options: CallOptions): Promise<WireReader> {
    let cluster = await this.required(name, doing, options);
    await followAction(async () => {
      cluster = await this.required(name, doing, options);
      return { done: isIdle(cluster) };
    }, { what: `atlas: ${doing}: waiting for the cluster to be IDLE`, intervalMs: this.pollMs, signal: options.signal });
    return cluster;
  }

  /** Whether the cluster's latest restore (its `cairn-restore` tag) is still running at Atlas. */
  private async restoreRunning(cluster: WireReader, options: CallOptions): Promise<boolean> {
    const [, job] = (tagsOf(cluster).get(RESTORE_TAG) ?? '').split(' ');
    const [source, jobId] = (job ?? '').split('/');
    if (!source || !jobId) return false;
    const doing = `observe restore job ${jobId} into cluster ${cluster.string('name')}`;
    const answer = await this.client.call({
      method: 'GET', path: `${this.project.path}/clusters/${id(source)}/backup/restoreJobs/${id(jobId)}`, headers: ATLAS_VERSION_2023_01_01, doing, accept: [404], signal: options.signal,
    });
    if (answer.status === 404) return false;
    const restore = WireReader.of(answer.body, `atlas: ${doing}`);
    return restore.raw('finishedAt') === undefined && restore.raw('failed') !== true && restore.raw('cancelled') !== true;
  }

  private async tag(cluster: WireReader, key: string, value: string, doing: string, options: CallOptions): Promise<void> {
    const tags = [...tagsOf(cluster)].filter(([k]) => k !== key).map(([k, v]) => ({ key: k, value: v }));
    await this.client.call({
      method: 'PATCH', path: `${this.project.path}/clusters/${id(cluster.string('name'))}`, body: { tags: [...tags, { key, value }] }, headers: ATLAS_VERSION_2024_10_23, doing, signal: options.signal,
    });
  }

  private user(name: string, password: string): Record<string, unknown> {
    return {
      databaseName: AUTH_DATABASE, groupId: this.project.id, username: name, password,
      roles: [{ databaseName: AUTH_DATABASE, roleName: 'readWriteAnyDatabase' }], scopes: [{ name, type: 'CLUSTER' }],
    };
  }

  /** The cluster's database user, created with cairn's password unless it exists (its password is then `setPassword`'s business). */
  private async ensureUser(name: string, password: string, doing: string, options: CallOptions): Promise<void> {
    const answer = await this.client.call({
      method: 'GET', path: `${this.project.path}/databaseUsers/${AUTH_DATABASE}/${id(name)}`, headers: ATLAS_VERSION_2023_01_01, doing: `${doing}: read its database user`, accept: [404], signal: options.signal,
    });
    if (answer.status === 404) await this.createUser(name, password, doing, options);
  }

  private async createUser(name: string, password: string, doing: string, options: CallOptions): Promise<void> {
    await this.client.call({
      method: 'POST', path: `${this.project.path}/databaseUsers`, body: this.user(name, password), headers: ATLAS_VERSION_2023_01_01,
      doing: `${doing}: create its database user`, accept: [409], signal: options.signal,
    });
  }

  private snapshotsPath(clusterName: string): string {
    return `${this.project.path}/clusters/${id(clusterName)}/backup/snapshots`;
  }

  private async findSnapshot(clusterName: string, key: string, options: CallOptions): Promise<BackupObserved | null> {
    const doing = `find the snapshot of cluster ${clusterName} with key ${key}`;
    const snapshots = await readAllPages(async (at) => {
      const pageNum = at === undefined ? 1 : Number(at);
      const answer = await this.client.call({ method: 'GET', path: this.snapshotsPath(clusterName), query: { pageNum, itemsPerPage: PAGE_SIZE }, headers: ATLAS_VERSION_2023_01_01, doing, accept: [404], signal: options.signal });
      return answer.status === 404 ? { items: [], next: undefined } : readPage(WireReader.of(answer.body, `atlas: ${doing}`), pageNum);
    }, `atlas: ${doing}`);
    const found = snapshots.find((snapshot) => keyOfSnapshot(snapshot) === key);
    return found ? readSnapshot(clusterName, found) : null;
  }

  /** The names of the project's clusters cairn made (deleted ones whose snapshots Atlas keeps included). */
  private async clusterNames(options: CallOptions): Promise<string[]> {
    const doing = "list the project's clusters";
    const clusters = await readAllPages(async (at) => {
      const pageNum = at === undefined ? 1 : Number(at);
      const answer = await this.client.call({
        method: 'GET', path: `${this.project.path}/clusters`, query: { pageNum, itemsPerPage: PAGE_SIZE, includeDeletedWithRetainedBackups: true }, headers: ATLAS_VERSION_2024_08_05, doing, signal: options.signal,
      });
      return readPage(WireReader.of(answer.body, `atlas: ${doing}`), pageNum);
    }, `atlas: ${doing}`);
    return clusters.filter((c) => tagsOf(c).get(MANAGED_TAG.key) === MANAGED_TAG.value).map((c) => c.string('name'));
  }
}
