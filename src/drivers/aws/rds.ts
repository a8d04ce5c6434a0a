/**
 * @module Amazon RDS for PostgreSQL (API 2014-10-31, `@aws-sdk/client-rds`) as cairn's
 * DatabaseRuntime. A Database's `managed.region` is an AWS region, its `managed.size` a DB
 * instance class (`db.t4g.micro`); class, version and storage are checked against
 * DescribeOrderableDBInstanceOptions (every page) before CreateDBInstance is sent. RDS has no
 * client token, but a DBInstanceIdentifier is unique in its region, so cairn names the instance
 * after its key (`cairn-<sha256(key), 24 hex>`): a create whose answer was lost is found by that
 * name (DescribeDBInstances) and a second CreateDBInstance of it is refused by RDS itself; the
 * key also rides as the `cairn-key` tag. cairn's password is the master user `cairn`'s;
 * setPassword is ModifyDBInstance's MasterUserPassword (applied immediately). cairn's id is
 * `<region>/<identifier>`.
 *
 * Backups are manual DB snapshots named after the backup's key the same way
 * (`cairn-backup-<sha256(key)>`, CreateDBSnapshot / DescribeDBSnapshots / DeleteDBSnapshot); they
 * outlive their instance. The final backup before a delete is such a snapshot, taken by cairn's
 * reconciler through createBackup (or skipped with `cairn.dev/skip-final-backup`), so
 * DeleteDBInstance itself is sent with SkipFinalSnapshot. Restore is refused: RDS restores a
 * snapshot only into a new instance (RestoreDBInstanceFromDBSnapshot), never in place.
 */
import { createHash } from 'node:crypto';
import {
  CreateDBInstanceCommand, CreateDBSnapshotCommand, DeleteDBInstanceCommand, DeleteDBSnapshotCommand, DescribeDBInstancesCommand, DescribeDBSnapshotsCommand,
  DescribeOrderableDBInstanceOptionsCommand, ModifyDBInstanceCommand, RDSClient, type DBInstance, type DBSnapshot, type OrderableDBInstanceOption,
} from '@aws-sdk/client-rds';
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, VendorBackupStatus, VendorDatabaseStatus } from '../contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { KEY_LABEL } from '../kit/ownership-labels.js';
import { readAllPages } from '../kit/pagination.js';
import type { AwsClients, SendOptions } from './clients.js';
import { isAwsError } from './sdk-call.js';

/** The master user cairn names (RDS reserves `rdsadmin`). */
export const MASTER_USERNAME = 'cairn';

/** Why a restore is refused. */
export const NO_IN_PLACE_RESTORE =
  'RDS restores a DB snapshot only into a new DB instance (RestoreDBInstanceFromDBSnapshot), never into the instance it came from, so cairn does not restore RDS databases in place; restore the snapshot at AWS into a new instance and point a Database at it';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ORDERABLE_PAGE = 100;

function digest(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 24);
}

/** The DBInstanceIdentifier of a key: RDS's names are unique per region, so the name is the idempotency. */
export function instanceIdentifier(key: string): string {
  return `cairn-${digest(key)}`;
}

/** The DBSnapshotIdentifier of a backup's key. */
export function snapshotIdentifier(key: string): string {
  return `cairn-backup-${digest(key)}`;
}

/** `eu-west-1/cairn-…` → its parts; a refusal for an id that is not cairn's. */
export function parseRdsId(externalId: string): { region: string; identifier: string } {
  const m = /^([a-z]{2}(?:-[a-z]+)+-\d+)\/([a-z][a-z0-9-]{0,254})$/.exec(externalId);
  if (!m) throw new VendorRejectedError(`aws rds: "${externalId}" is not an RDS id of cairn's (<region>/<identifier>)`);
  return { region: m[1]!, identifier: m[2]! };
}

/** DBInstanceStatus as cairn's status. */
export function readInstanceStatus(status: string | undefined): VendorDatabaseStatus {
  if (status === 'creating') return 'creating';
  if (status === 'deleting') return 'deleting';
  if (status === 'backing-up') return 'backing_up';
  if (status === 'restore-error' || status === 'failed' || status?.startsWith('incompatible') || status === 'inaccessible-encryption-credentials') return 'error';
  return 'available';
}

function readSnapshotStatus(status: string | undefined): VendorBackupStatus {
  if (status === 'available') return 'completed';
  if (status === 'failed' || status === 'error') return 'failed';
  return 'running';
}

function tag(tags: Array<{ Key?: string | undefined; Value?: string | undefined }> | undefined, key: string): string {
  return tags?.find((t) => t.Key === key)?.Value ?? '';
}

function readInstance(i: DBInstance, region: string): DatabaseObserved {
  const status = readInstanceStatus(i.DBInstanceStatus);
  const reachable = status !== 'creating' && status !== 'deleting' && i.Endpoint?.Address !== undefined;
  return {
    id: `${region}/${i.DBInstanceIdentifier ?? ''}`,
    name: tag(i.TagList, 'Name') || (i.DBInstanceIdentifier ?? ''),
    clientToken: tag(i.TagList, KEY_LABEL),
    serverId: '',
    type: 'postgresql',
    version: (i.EngineVersion ?? '').split('.')[0] ?? '',
    storageGb: i.AllocatedStorage ?? null,
    size: i.DBInstanceClass ?? '',
    status,
    host: reachable ? i.Endpoint!.Address! : null,
    port: reachable ? (i.Endpoint?.Port ?? 5432) : null,
    engineVersion: i.EngineVersion ?? null,
  };
}

function readSnapshot(s: DBSnapshot, region: string): BackupObserved {
  const status = readSnapshotStatus(s.Status);
  return {
    id: `${region}/${s.DBSnapshotIdentifier ?? ''}`,
    clientToken: tag(s.TagList, KEY_LABEL),
    databaseId: `${region}/${s.DBInstanceIdentifier ?? ''}`,
    status,
    sizeBytes: s.AllocatedStorage === undefined ? null : s.AllocatedStorage * 1024 ** 3,
    checksum: null,
    createdAt: (s.SnapshotCreateTime ?? new Date()).toISOString(),
    completedAt: status === 'completed' ? (s.SnapshotCreateTime ?? new Date()).toISOString() : null,
    message: status === 'failed' ? `RDS reports the snapshot ${s.Status ?? ''}` : null,
  };
}

export class RdsPostgres implements DatabaseRuntime {
  /** Regions a key was last created in (databases and backups): where observe by key alone looks, besides the home region. */
  private readonly regionsByKey = new Map<string, string>();

  constructor(private readonly clients: AwsClients, private readonly homeRegion: string) {}

  private send<Output>(region: string, doing: string, options: CallOptions, send: (client: RDSClient, o: SendOptions) => Promise<Output>): Promise<Output> {
    return this.clients.sendRds(RDSClient, region, doing, options.signal, send);
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) return this.byId(ref.externalId, options);
    return this.instance(this.regionsByKey.get(ref.key) ?? this.homeRegion, instanceIdentifier(ref.key), options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`aws managed ${desired.type}: RDS through cairn runs postgresql only`, { field: 'type' });
    const managed = desired.managed;
    if (!managed) throw new Error(`aws rds: database "${desired.name}" has no managed region and size`);
    const region = managed.region;
    if (!REGION.test(region)) throw new VendorRejectedError(`aws managed postgresql: region "${region}" is not an AWS region name (e.g. eu-west-1)`, { field: 'region' });
    this.regionsByKey.set(key, region);
    const identifier = instanceIdentifier(key);
    const existing = await this.instance(region, identifier, options);
    if (existing) return existing;
    const storage = await this.checkOrderable(region, desired, options);
    const doing = `create DB instance ${identifier} ("${desired.name}")`;
    try {
      const answer = await this.send(region, doing, options, (rds, o) => rds.send(new CreateDBInstanceCommand({
        DBInstanceIdentifier: identifier, Engine: 'postgres', EngineVersion: desired.version, DBInstanceClass: managed.size, AllocatedStorage: storage,
        MasterUsername: MASTER_USERNAME, MasterUserPassword: desired.password,
        Tags: [{ Key: 'Name', Value: desired.name }, { Key: KEY_LABEL, Value: key }, { Key: 'managed-by', Value: 'cairn' }],
      }), o));
      if (!answer.DBInstance) throw new Error(`aws rds ${region}: ${doing}: the answer names no instance`);
      return readInstance(answer.DBInstance, region);
    } catch (error) {
      // Another create of this key got there first (or its answer was lost): the name is the key's.
      if (!isAwsError(error, 'DBInstanceAlreadyExists', 'DBInstanceAlreadyExistsFault')) throw error;
      const found = await this.instance(region, identifier, options);
      if (!found) throw error;
      return found;
    }
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const current = await this.byId(externalId, options);
    if (!current) throw new Error(`aws rds: DB instance ${externalId} no longer exists`);
    if (current.version !== desired.version || current.size !== desired.managed?.size || (desired.storageGb !== null && desired.storageGb !== current.storageGb)) {
      throw new UnsupportedError(
        `aws rds: DB instance ${externalId} runs PostgreSQL ${current.version} on ${current.size ?? '?'} with ${current.storageGb ?? '?'} GB; cairn does not change an RDS instance's version, class or storage (ModifyDBInstance is driven for the password only): set them back, or replace the database`,
      );
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const { region, identifier } = parseRdsId(externalId);
    const current = await this.instance(region, identifier, options);
    if (!current || current.status === 'deleting') return;
    try {
      // cairn's final backup was taken before this (createBackup), or skipped on purpose.
      await this.send(region, `delete DB instance ${identifier}`, options, (rds, o) => rds.send(new DeleteDBInstanceCommand({ DBInstanceIdentifier: identifier, SkipFinalSnapshot: true }), o));
    } catch (error) {
      if (!isAwsError(error, 'DBInstanceNotFound', 'DBInstanceNotFoundFault')) throw error;
    }
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const found = await this.byId(externalId, options);
    if (!found?.host || found.port === null) throw new Error(`aws rds: DB instance ${externalId} has no endpoint yet (${found?.status ?? 'gone'})`);
    return { host: found.host, port: found.port, username: MASTER_USERNAME, database: 'postgres' };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const { region, identifier } = parseRdsId(externalId);
    await this.send(region, `set the master password of DB instance ${identifier}`, options, (rds, o) =>
      rds.send(new ModifyDBInstanceCommand({ DBInstanceIdentifier: identifier, MasterUserPassword: password, ApplyImmediately: true }), o));
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    const { region, identifier } = parseRdsId(databaseExternalId);
    this.regionsByKey.set(key, region);
    const snapshot = snapshotIdentifier(key);
    const existing = await this.snapshot(region, snapshot, options);
    if (existing) return existing;
    const doing = `snapshot DB instance ${identifier} as ${snapshot}`;
    try {
      const answer = await this.send(region, doing, options, (rds, o) => rds.send(new CreateDBSnapshotCommand({
        DBInstanceIdentifier: identifier, DBSnapshotIdentifier: snapshot, Tags: [{ Key: KEY_LABEL, Value: key }, { Key: 'managed-by', Value: 'cairn' }],
      }), o));
      if (!answer.DBSnapshot) throw new Error(`aws rds ${region}: ${doing}: the answer names no snapshot`);
      return readSnapshot(answer.DBSnapshot, region);
    } catch (error) {
      if (!isAwsError(error, 'DBSnapshotAlreadyExists', 'DBSnapshotAlreadyExistsFault')) throw error;
      const found = await this.snapshot(region, snapshot, options);
      if (!found) throw error;
      return found;
    }
  }

  async observeBackup(ref: ExternalRef, options: CallOptions = {}): Promise<BackupObserved | null> {
    if (ref.externalId) {
      const { region, identifier } = parseRdsId(ref.externalId);
      return this.snapshot(region, identifier, options);
    }
    return this.snapshot(this.regionsByKey.get(ref.key) ?? this.homeRegion, snapshotIdentifier(ref.key), options);
  }

  async deleteBackup(backupExternalId: string, options: CallOptions = {}): Promise<void> {
    const { region, identifier } = parseRdsId(backupExternalId);
    try {
      await this.send(region, `delete DB snapshot ${identifier}`, options, (rds, o) => rds.send(new DeleteDBSnapshotCommand({ DBSnapshotIdentifier: identifier }), o));
    } catch (error) {
      if (!isAwsError(error, 'DBSnapshotNotFound', 'DBSnapshotNotFoundFault')) throw error;
    }
  }

  restore(databaseExternalId: string): Promise<DatabaseObserved> {
    return Promise.reject(new UnsupportedError(`aws rds: DB instance ${databaseExternalId}: ${NO_IN_PLACE_RESTORE}`));
  }

  /** The storage to ask for (the Database's, or the class's least); refused before sending when the region sells no such class, version or storage. */
  private async checkOrderable(region: string, desired: DatabaseDesired, options: CallOptions): Promise<number> {
    const size = desired.managed?.size ?? '';
    const doing = `list PostgreSQL options on ${size}`;
    const offered = await readAllPages<OrderableDBInstanceOption>(async (marker) => {
      const page = await this.send(region, doing, options, (rds, o) => rds.send(new DescribeOrderableDBInstanceOptionsCommand({
        Engine: 'postgres', DBInstanceClass: size, MaxRecords: ORDERABLE_PAGE, ...(marker === undefined ? {} : { Marker: marker }),
      }), o));
      return { items: page.OrderableDBInstanceOptions ?? [], next: page.Marker ?? undefined };
    }, `aws rds ${region}: ${doing}`);
    if (offered.length === 0) throw new VendorRejectedError(`aws managed postgresql: size "${size}" is not a DB instance class RDS sells for PostgreSQL in ${region}`, { field: 'size' });
    const matching = offered.filter((o) => o.EngineVersion === desired.version || o.EngineVersion?.startsWith(`${desired.version}.`));
    if (matching.length === 0) {
      const majors = [...new Set(offered.map((o) => (o.EngineVersion ?? '').split('.')[0]))].join(', ');
      throw new VendorRejectedError(`aws managed postgresql: version "${desired.version}" is not offered on ${size} in ${region}; versions: ${majors}`, { field: 'version' });
    }
    const min = Math.min(...matching.map((o) => o.MinStorageSize ?? 20));
    const max = Math.max(...matching.map((o) => o.MaxStorageSize ?? 65536));
    const storage = desired.storageGb ?? min;
    if (storage < min || storage > max) throw new VendorRejectedError(`aws managed postgresql: storage ${storage} GB is not possible on ${size}: ${min} to ${max} GB`, { field: 'storageGb' });
    return storage;
  }

  private byId(externalId: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const { region, identifier } = parseRdsId(externalId);
    return this.instance(region, identifier, options);
  }

  private async instance(region: string, identifier: string, options: CallOptions): Promise<DatabaseObserved | null> {
    try {
      const answer = await this.send(region, `observe DB instance ${identifier}`, options, (rds, o) => rds.send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: identifier }), o));
      const found = answer.DBInstances?.find((i) => i.DBInstanceIdentifier === identifier);
      return found ? readInstance(found, region) : null;
    } catch (error) {
      if (isAwsError(error, 'DBInstanceNotFound', 'DBInstanceNotFoundFault')) return null;
      throw error;
    }
  }

  private async snapshot(region: string, identifier: string, options: CallOptions): Promise<BackupObserved | null> {
    try {
      const answer = await this.send(region, `observe DB snapshot ${identifier}`, options, (rds, o) => rds.send(new DescribeDBSnapshotsCommand({ DBSnapshotIdentifier: identifier }), o));
      const found = answer.DBSnapshots?.find((s) => s.DBSnapshotIdentifier === identifier);
      return found ? readSnapshot(found, region) : null;
    } catch (error) {
      if (isAwsError(error, 'DBSnapshotNotFound', 'DBSnapshotNotFoundFault')) return null;
      throw error;
    }
  }
}
