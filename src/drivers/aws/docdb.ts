/**
 * @module Amazon DocumentDB (API 2014-10-31, `@aws-sdk/client-docdb`) as cairn's managed
 * MongoDB. A Database is one DocumentDB cluster holding one instance: `managed.region` is an AWS
 * region, `managed.size` the instance class, both (with the version) checked against
 * DescribeOrderableDBInstanceOptions before anything is created. The cluster's identifier is
 * derived from cairn's key (`cairn-<digest>`; identifiers are unique per account and region, so
 * the name is the idempotency: a create whose answer was lost is found by it, never made twice),
 * and it carries the key as the `cairn-key` tag. The master user is `cairn` with cairn's password;
 * rotation is ModifyDBCluster MasterUserPassword. cairn's id is `<region>/<cluster identifier>`.
 * A cluster whose instance is missing (its create was lost between the two calls) is reported
 * `down`, and update() creates the instance. Delete removes the instance, then the cluster once
 * the instance is gone (DocumentDB refuses to delete a cluster that still has instances); cairn
 * has taken its final backup first (a manual cluster snapshot, unless skipped), so the cluster is
 * deleted with SkipFinalSnapshot. Backups are manual cluster snapshots whose identifier is
 * derived from the backup's key (`<region>/<snapshot identifier>`). Restore is refused: DocumentDB
 * restores a snapshot only into a new cluster (RestoreDBClusterFromSnapshot), never in place.
 */
import { createHash } from 'node:crypto';
import {
  CreateDBClusterCommand, CreateDBClusterSnapshotCommand, CreateDBInstanceCommand, DeleteDBClusterCommand, DeleteDBClusterSnapshotCommand, DeleteDBInstanceCommand,
  DescribeDBClustersCommand, DescribeDBClusterSnapshotsCommand, DescribeDBInstancesCommand, DescribeOrderableDBInstanceOptionsCommand, DocDBClient, ListTagsForResourceCommand, ModifyDBClusterCommand,
  type DBCluster, type DBClusterSnapshot, type DBInstance,
} from '@aws-sdk/client-docdb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { guardedHttpAgent, guardedHttpsAgent } from '../../net/guarded-agent.js';
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, VendorBackupStatus, VendorDatabaseStatus } from '../contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import type { RateBudget } from '../kit/rate-budget.js';
import type { AwsCredentials } from './clients.js';
import { awsCall, isAwsError } from './sdk-call.js';

export const DOCDB_ENGINE = 'docdb';
export const MASTER_USERNAME = 'cairn';
export const DOCDB_PORT = 27017;
/** The database MongoDB clients authenticate against. */
export const AUTH_DATABASE = 'admin';
/** Records per page (DescribeOrderableDBInstanceOptions' and the lists' least maximum). */
const PAGE = 20;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** Why restore is refused (said in every refusal). */
export const NO_RESTORE_IN_PLACE =
  'DocumentDB restores a cluster snapshot only into a new cluster (RestoreDBClusterFromSnapshot), never into the cluster it came from, so cairn does not restore in place: restore the snapshot at AWS into a new cluster and point a new Database at it';

export interface DocdbOptions {
  credentials: AwsCredentials;
  endpoint: string | undefined;
  requestTimeoutMs: number;
  budget: RateBudget;
  /** Where a backup is looked for by key alone when this driver did not make it. */
  homeRegion: string;
}

/**
 * A DocumentDB identifier for `key` (letters, digits, single hyphens, starting with a letter, at
 * most 63). DocumentDB and RDS share one identifier space and one id shape in cairn
 * (`<region>/<identifier>`), so `docdb-` tells a DocumentDB id from an RDS one.
 */
export function identifierFor(key: string): string {
  return `cairn-docdb-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** Whether `id` is one of this half's: a cluster or snapshot id cairn made (`<region>/cairn-docdb-<24 hex>`). */
export function ownsDocdbId(id: string): boolean {
  return /^[a-z]{2}(?:-[a-z]+)+-\d+\/cairn-docdb-[0-9a-f]{24}$/.test(id);
}

/** `eu-west-1/cairn-…` → its parts; a refusal for an id that is not cairn's. */
export function parseDocdbId(id: string, what = 'DocumentDB cluster'): { region: string; identifier: string } {
  const match = /^([a-z]{2}(?:-[a-z]+)+-\d+)\/([a-z][a-z0-9-]{0,62})$/.exec(id);
  if (!match) throw new VendorRejectedError(`aws: "${id}" is not a ${what} id of cairn's (<region>/<identifier>)`);
  return { region: match[1]!, identifier: match[2]! };
}

/** A cluster's and its instance's status as cairn's. */
export function readClusterStatus(cluster: string, instance: string | undefined): VendorDatabaseStatus {
  if (cluster === 'deleting' || instance === 'deleting') return 'deleting';
  if (cluster === 'creating' || instance === 'creating') return 'creating';
  if (cluster === 'backing-up' || instance === 'backing-up') return 'backing_up';
  if (['failed', 'inaccessible-encryption-credentials', 'incompatible-network', 'storage-full'].includes(cluster)) return 'error';
  return 'available';
}

function readBackupStatus(status: string | undefined): VendorBackupStatus {
  if (status === 'available') return 'completed';
  if (status === 'creating' || status === 'copying') return 'running';
  return 'failed';
}

export class DocdbDatabases implements DatabaseRuntime {
  private readonly clients = new Map<string, DocDBClient>();
  private readonly handler: NodeHttpHandler;
  /** Regions this driver made backups in, by key: where observeBackup looks for a key with no id. */
  private readonly backupRegions = new Map<string, string>();
  /** Regions this driver created clusters in, by key: where observe looks for a key with no id (after a restart, create finds it by its name). */
  private readonly regionsByKey = new Map<string, string>();

  constructor(private readonly options: DocdbOptions) {
    this.handler = new NodeHttpHandler({ httpAgent: guardedHttpAgent(), httpsAgent: guardedHttpsAgent(), requestTimeout: options.requestTimeoutMs, connectionTimeout: options.requestTimeoutMs });
  }

  private send<T>(region: string, doing: string, options: CallOptions, call: (client: DocDBClient, abortSignal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    let client = this.clients.get(region);
    if (!client) {
      client = new DocDBClient({ region, credentials: this.options.credentials, maxAttempts: 1, requestHandler: this.handler, ...(this.options.endpoint === undefined ? {} : { endpoint: this.options.endpoint }) });
      this.clients.set(region, client);
    }
    const chosen = client;
    return awsCall({ label: `aws docdb ${region}`, budget: this.options.budget, requestTimeoutMs: this.options.requestTimeoutMs, signal: options.signal }, doing, (signal) => call(chosen, signal));
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) return this.byId(ref.externalId, options);
    const region = this.regionsByKey.get(ref.key);
    return region === undefined ? null : this.byId(`${region}/${identifierFor(ref.key)}`, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    if (desired.type !== 'mongodb') throw new VendorRejectedError(`aws managed ${desired.type}: DocumentDB runs mongodb only`, { field: 'type' });
    const managed = desired.managed;
    if (!managed) throw new Error(`aws: database "${desired.name}" has no managed region and size`);
    if (!REGION.test(managed.region)) throw new VendorRejectedError(`aws managed mongodb: region "${managed.region}" is not an AWS region name (e.g. eu-west-1)`, { field: 'region' });
    if (desired.storageGb !== null) throw new VendorRejectedError('aws managed mongodb: DocumentDB storage grows by itself (no size is chosen): leave storageGb out', { field: 'storageGb' });
    const region = managed.region;
    const identifier = identifierFor(key);
    const id = `${region}/${identifier}`;
    this.regionsByKey.set(key, region);
    const existing = await this.cluster(region, identifier, options);
    if (!existing) {
      const engineVersion = await this.checkOrderable(region, desired, options);
      const doing = `create DocumentDB cluster ${identifier} for "${desired.name}" in ${region}`;
      try {
        await this.send(region, doing, options, (c, abortSignal) => c.send(new CreateDBClusterCommand({
          DBClusterIdentifier: identifier, Engine: DOCDB_ENGINE, EngineVersion: engineVersion, MasterUsername: MASTER_USERNAME, MasterUserPassword: desired.password,
          Tags: [{ Key: KEY_LABEL, Value: key }, { Key: 'Name', Value: desired.name }, { Key: 'managed-by', Value: 'cairn' }],
        }), { abortSignal }));
      } catch (error) {
        // Its first answer was lost and the cluster is there: the name is the idempotency.
        if (!isAwsError(error, 'DBClusterAlreadyExistsFault')) throw error;
      }
    }
    await this.ensureInstance(region, identifier, managed.size, key, options);
    const made = await this.byId(id, options);
    if (!made) throw new Error(`aws: DocumentDB cluster ${identifier} is not listed after its create`);
    return made;
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const { region, identifier } = parseDocdbId(externalId);
    const current = await this.byId(externalId, options);
    if (!current) throw new Error(`aws: DocumentDB cluster ${externalId} no longer exists`);
    if (current.down !== undefined && desired.managed) {
      await this.ensureInstance(region, identifier, desired.managed.size, current.clientToken, options);
      return (await this.byId(externalId, options)) ?? current;
    }
    if (current.version !== desired.version || (current.size !== undefined && current.size !== desired.managed?.size)) {
      throw new UnsupportedError(`aws: DocumentDB cluster ${externalId} runs ${current.version} on ${current.size ?? '?'}; cairn does not change a DocumentDB cluster's version or instance class (ModifyDBCluster/ModifyDBInstance are not driven yet): set them back, or replace the database`);
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const { region, identifier } = parseDocdbId(externalId);
    const cluster = await this.cluster(region, identifier, options);
    if (!cluster) return;
    const instances = await this.instances(region, identifier, options);
    for (const instance of instances.filter((i) => i.DBInstanceStatus !== 'deleting')) {
      const name = instance.DBInstanceIdentifier ?? '';
      await this.ignoring(['DBInstanceNotFound'], this.send(region, `delete DocumentDB instance ${name}`, options, (c, abortSignal) => c.send(new DeleteDBInstanceCommand({ DBInstanceIdentifier: name }), { abortSignal })));
    }
    if ((await this.instances(region, identifier, options)).length > 0) {
      // DocumentDB deletes a cluster only once it has no instances: the reconciler comes back.
      throw new VendorUnavailableError(`aws: DocumentDB cluster ${identifier} is deleted once its instance is gone (deleting)`);
    }
    if (cluster.Status === 'deleting') return;
    // cairn took its final backup (a manual cluster snapshot) before this, unless it was skipped.
    await this.ignoring(['DBClusterNotFoundFault'], this.send(region, `delete DocumentDB cluster ${identifier}`, options, (c, abortSignal) => c.send(new DeleteDBClusterCommand({ DBClusterIdentifier: identifier, SkipFinalSnapshot: true }), { abortSignal })));
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const found = await this.byId(externalId, options);
    if (!found?.host || found.port === null) throw new Error(`aws: DocumentDB cluster ${externalId} has no address yet (${found?.status ?? 'gone'})`);
    return { host: found.host, port: found.port, username: MASTER_USERNAME, database: AUTH_DATABASE };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const { region, identifier } = parseDocdbId(externalId);
    await this.send(region, `set the password of ${MASTER_USERNAME} on DocumentDB cluster ${identifier}`, options, (c, abortSignal) =>
      c.send(new ModifyDBClusterCommand({ DBClusterIdentifier: identifier, MasterUserPassword: password, ApplyImmediately: true }), { abortSignal }));
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    const { region, identifier } = parseDocdbId(databaseExternalId);
    const snapshot = identifierFor(key);
    this.backupRegions.set(key, region);
    const existing = await this.snapshot(region, snapshot, options);
    if (existing) return this.readBackup(existing, region, key);
    try {
      await this.send(region, `snapshot DocumentDB cluster ${identifier} as ${snapshot}`, options, (c, abortSignal) =>
        c.send(new CreateDBClusterSnapshotCommand({ DBClusterIdentifier: identifier, DBClusterSnapshotIdentifier: snapshot, Tags: [{ Key: KEY_LABEL, Value: key }] }), { abortSignal }));
    } catch (error) {
      if (!isAwsError(error, 'DBClusterSnapshotAlreadyExistsFault')) throw error;
    }
    const made = await this.snapshot(region, snapshot, options);
    if (!made) throw new Error(`aws: DocumentDB cluster snapshot ${snapshot} is not listed after its create`);
    return this.readBackup(made, region, key);
  }

  async observeBackup(ref: ExternalRef, options: CallOptions = {}): Promise<BackupObserved | null> {
    const { region, identifier } = ref.externalId
      ? parseDocdbId(ref.externalId, 'DocumentDB snapshot')
      : { region: this.backupRegions.get(ref.key) ?? this.options.homeRegion, identifier: identifierFor(ref.key) };
    const found = await this.snapshot(region, identifier, options);
    return found ? this.readBackup(found, region, ref.key) : null;
  }

  async deleteBackup(backupExternalId: string, options: CallOptions = {}): Promise<void> {
    const { region, identifier } = parseDocdbId(backupExternalId, 'DocumentDB snapshot');
    await this.ignoring(['DBClusterSnapshotNotFoundFault'], this.send(region, `delete DocumentDB cluster snapshot ${identifier}`, options, (c, abortSignal) =>
      c.send(new DeleteDBClusterSnapshotCommand({ DBClusterSnapshotIdentifier: identifier }), { abortSignal })));
  }

  restore(databaseExternalId: string): Promise<DatabaseObserved> {
    return Promise.reject(new UnsupportedError(`aws: DocumentDB cluster ${databaseExternalId}: ${NO_RESTORE_IN_PLACE}`));
  }

  close(): void {
    for (const client of this.clients.values()) client.destroy();
    this.handler.destroy();
  }

  /** The engine version to ask for; refused before sending when the region sells no such class or version. */
  private async checkOrderable(region: string, desired: DatabaseDesired, options: CallOptions): Promise<string> {
    const doing = `list DocumentDB instance classes in ${region}`;
    const all = await readAllPages(async (marker) => {
      const page = await this.send(region, doing, options, (c, abortSignal) => c.send(new DescribeOrderableDBInstanceOptionsCommand({ Engine: DOCDB_ENGINE, MaxRecords: PAGE, ...(marker === undefined ? {} : { Marker: marker }) }), { abortSignal }));
      return { items: page.OrderableDBInstanceOptions ?? [], next: page.Marker };
    }, `aws: ${doing}`);
    const versions = [...new Set(all.map((o) => o.EngineVersion ?? ''))].sort();
    const matching = versions.filter((v) => v === desired.version || v.startsWith(`${desired.version}.`));
    if (matching.length === 0) throw new VendorRejectedError(`aws managed mongodb: DocumentDB version "${desired.version}" is not offered in ${region}; versions: ${versions.join(', ')}`, { field: 'version' });
    const engineVersion = matching[matching.length - 1]!;
    const size = desired.managed?.size ?? '';
    const classes = [...new Set(all.filter((o) => o.EngineVersion === engineVersion).map((o) => o.DBInstanceClass ?? ''))];
    if (!classes.includes(size)) throw new VendorRejectedError(`aws managed mongodb: instance class "${size}" is not sold in ${region} for DocumentDB ${engineVersion}; sizes: ${classes.join(', ')}`, { field: 'size' });
    return engineVersion;
  }

  private async ensureInstance(region: string, cluster: string, size: string, key: string, options: CallOptions): Promise<void> {
    if ((await this.instances(region, cluster, options)).length > 0) return;
    const name = `${cluster}-1`;
    try {
      await this.send(region, `create DocumentDB instance ${name} (${size}) in cluster ${cluster}`, options, (c, abortSignal) => c.send(new CreateDBInstanceCommand({
        DBInstanceIdentifier: name, DBClusterIdentifier: cluster, DBInstanceClass: size, Engine: DOCDB_ENGINE, Tags: [{ Key: KEY_LABEL, Value: key }],
      }), { abortSignal }));
    } catch (error) {
      if (!isAwsError(error, 'DBInstanceAlreadyExists')) throw error;
    }
  }

  private async cluster(region: string, identifier: string, options: CallOptions): Promise<DBCluster | undefined> {
    try {
      const answer = await this.send(region, `observe DocumentDB cluster ${identifier}`, options, (c, abortSignal) => c.send(new DescribeDBClustersCommand({ DBClusterIdentifier: identifier }), { abortSignal }));
      return answer.DBClusters?.find((c) => c.DBClusterIdentifier === identifier);
    } catch (error) {
      if (isAwsError(error, 'DBClusterNotFoundFault')) return undefined;
      throw error;
    }
  }

  private instances(region: string, cluster: string, options: CallOptions): Promise<DBInstance[]> {
    const doing = `list the instances of DocumentDB cluster ${cluster}`;
    return readAllPages(async (marker) => {
      const page = await this.send(region, doing, options, (c, abortSignal) => c.send(new DescribeDBInstancesCommand({ Filters: [{ Name: 'db-cluster-id', Values: [cluster] }], MaxRecords: PAGE, ...(marker === undefined ? {} : { Marker: marker }) }), { abortSignal }));
      return { items: page.DBInstances ?? [], next: page.Marker };
    }, `aws: ${doing}`);
  }

  private async snapshot(region: string, identifier: string, options: CallOptions): Promise<DBClusterSnapshot | undefined> {
    try {
      const answer = await this.send(region, `observe DocumentDB cluster snapshot ${identifier}`, options, (c, abortSignal) => c.send(new DescribeDBClusterSnapshotsCommand({ DBClusterSnapshotIdentifier: identifier }), { abortSignal }));
      return answer.DBClusterSnapshots?.find((s) => s.DBClusterSnapshotIdentifier === identifier);
    } catch (error) {
      if (isAwsError(error, 'DBClusterSnapshotNotFoundFault')) return undefined;
      throw error;
    }
  }

  private async byId(externalId: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const { region, identifier } = parseDocdbId(externalId);
    const cluster = await this.cluster(region, identifier, options);
    if (!cluster) return null;
    const [instance] = await this.instances(region, identifier, options);
    const clusterStatus = cluster.Status ?? '';
    const status = readClusterStatus(clusterStatus, instance?.DBInstanceStatus);
    const engineVersion = cluster.EngineVersion ?? '';
    const reachable = status === 'available' && instance !== undefined && Boolean(cluster.Endpoint);
    const tags = await this.tags(region, cluster.DBClusterArn ?? '', options);
    return {
      id: externalId,
      name: tags['Name'] ?? identifier,
      clientToken: tags[KEY_LABEL] ?? '',
      serverId: '',
      type: 'mongodb',
      version: engineVersion.split('.').slice(0, 2).join('.'),
      storageGb: null,
      ...(instance?.DBInstanceClass === undefined ? {} : { size: instance.DBInstanceClass }),
      status,
      host: reachable ? cluster.Endpoint ?? null : null,
      port: reachable ? cluster.Port ?? DOCDB_PORT : null,
      engineVersion: engineVersion || null,
      ...(instance === undefined && clusterStatus === 'available' ? { down: 'the cluster has no instance (its create was interrupted)' } : {}),
    };
  }

  /** The cluster's tags (DescribeDBClusters does not carry them). */
  private async tags(region: string, arn: string, options: CallOptions): Promise<Record<string, string>> {
    const answer = await this.send(region, `list the tags of ${arn}`, options, (c, abortSignal) => c.send(new ListTagsForResourceCommand({ ResourceName: arn }), { abortSignal }));
    return Object.fromEntries((answer.TagList ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
  }

  private readBackup(snapshot: DBClusterSnapshot, region: string, key: string): BackupObserved {
    const status = readBackupStatus(snapshot.Status);
    return {
      id: `${region}/${snapshot.DBClusterSnapshotIdentifier ?? ''}`,
      clientToken: key,
      databaseId: `${region}/${snapshot.DBClusterIdentifier ?? ''}`,
      status,
      sizeBytes: null,
      checksum: null,
      createdAt: (snapshot.SnapshotCreateTime ?? new Date(0)).toISOString(),
      completedAt: status === 'completed' ? (snapshot.SnapshotCreateTime ?? new Date(0)).toISOString() : null,
      message: status === 'failed' ? `DocumentDB snapshot status ${snapshot.Status ?? '?'}` : null,
    };
  }

  private async ignoring(codes: string[], call: Promise<unknown>): Promise<void> {
    try {
      await call;
    } catch (error) {
      if (!isAwsError(error, ...codes)) throw error;
    }
  }
}
