/**
 * @module TencentDB for MongoDB (API 2019-07-25, through the SDK's common client) as cairn's
 * DatabaseRuntime. A Database's `managed.region` is a zone (`ap-guangzhou-3`), its
 * `managed.size` a SpecCode of DescribeSpecInfo; the zone, the SpecCode for the version
 * (`6.0` → `MONGO_60_WT`) and the storage are checked against DescribeSpecInfo before
 * CreateDBInstanceHour is sent (pay-as-you-go, one replica set of the spec's least nodes,
 * cairn's password for Tencent's `mongouser`). CreateDBInstanceHour has no ClientToken (mongodb's
 * api.json names none), so the instance carries its key as the `cairn-key` tag and a create first
 * looks for it (DescribeDBInstances by that tag, every page): a create whose answer was lost is
 * found, never made twice. InstanceDetail names no SpecCode, so the instance also carries the one
 * it was made with as the `cairn-spec` tag, read back as its size. cairn's id is `<InstanceId>@<region>`. setPassword is
 * ResetDBInstancePassword; delete is IsolateDBInstance, then OfflineIsolatedDBInstance once the
 * instance is isolated (status -3; TerminateDBInstances is for monthly instances only).
 *
 * Backups are real: CreateBackupDBInstance (logical) with cairn's key as its BackupRemark, found
 * again by DescribeDBBackups' BackupDesc (so a backup whose answer was lost is not taken twice),
 * deleted with DeleteDBBackups; a backup's id is `<BackId>@<InstanceId>@<region>`. Restore is
 * refused saying why: RestoreDBInstance rolls named databases and collections back to a point in
 * time, it does not restore a backup in place.
 */
import type { BackupObserved, CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, VendorDatabaseStatus } from '../contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { readAllPages } from '../kit/pagination.js';
import { WireReader } from '../kit/wire-reader.js';
import { MONGODB, type TencentApi } from './sdk-client.js';
import { nextOffset, regionOfZone } from './wire-format.js';
import { KEY_TAG, MANAGED_TAG } from './postgres.js';

/** Instances and backups per page (DescribeDBInstances' most). */
const PAGE = 100;
/** The account Tencent makes on every MongoDB instance, whose password cairn sets. */
export const MONGO_USER = 'mongouser';
/** InstanceDetail names no SpecCode (only memory and machine type): the instance carries the one it was made with as this tag. */
export const SPEC_TAG = 'cairn-spec';

/** Why restore is refused (said in every refusal). */
export const NO_IN_PLACE_RESTORE =
  "TencentDB for MongoDB's RestoreDBInstance rolls databases and collections, each named, back to a point in time; it does not restore a backup in place (a backup is restored only by cloning it into a new instance), so cairn does not restore TencentDB for MongoDB backups";

/** `cmgo-abc@ap-guangzhou` → its parts; a refusal for an id that is not cairn's. */
export function parseMongoId(externalId: string): { instanceId: string; region: string } {
  const match = /^(cmgo-[a-z0-9]+)@([a-z]+-[a-z0-9-]+)$/.exec(externalId);
  if (!match) throw new VendorRejectedError(`tencent: "${externalId}" is not a TencentDB for MongoDB id of cairn's (cmgo-…@<region>)`);
  return { instanceId: match[1]!, region: match[2]! };
}

/** `17@cmgo-abc@ap-guangzhou` → its parts. */
export function parseMongoBackupId(externalId: string): { backupId: number; instanceId: string; region: string } {
  const match = /^(\d+)@(cmgo-[a-z0-9]+@[a-z]+-[a-z0-9-]+)$/.exec(externalId);
  if (!match) throw new VendorRejectedError(`tencent: "${externalId}" is not a TencentDB for MongoDB backup id of cairn's (<BackId>@cmgo-…@<region>)`);
  return { backupId: Number(match[1]), ...parseMongoId(match[2]!) };
}

/** `6.0` → `MONGO_60_WT` (Tencent's version code); anything else is refused by the catalog check. */
export function mongoVersionCode(version: string): string {
  return `MONGO_${version.replace('.', '')}_WT`;
}

/** `MONGO_60_WT` → `6.0`. */
function versionOfCode(code: string): string {
  const match = /^MONGO_(\d)(\d+)_WT$/.exec(code);
  return match ? `${match[1]}.${match[2]}` : code;
}

/** InstanceDetail.Status as cairn's status: 0 initialising, 1 changing, 2 running, -2/-3 isolated. */
export function readMongoStatus(status: number): VendorDatabaseStatus {
  if (status === 0) return 'creating';
  if (status < 0) return 'deleting';
  return 'available';
}

function readMongo(instance: WireReader, region: string): DatabaseObserved {
  const key = instance.array('Tags').find((t) => t.string('TagKey') === KEY_TAG)?.string('TagValue') ?? '';
  const status = readMongoStatus(instance.number('Status'));
  const vip = instance.string('Vip');
  return {
    id: `${instance.string('InstanceId')}@${region}`,
    name: instance.string('InstanceName'),
    clientToken: key,
    serverId: '',
    type: 'mongodb',
    version: versionOfCode(instance.string('MongoVersion')),
    storageGb: Math.round(instance.number('Volume') / 1024),
    size: instance.array('Tags').find((t) => t.string('TagKey') === SPEC_TAG)?.string('TagValue') ?? '',
    status,
    host: status === 'available' && vip !== '' ? vip : null,
    port: status === 'available' && vip !== '' ? instance.number('Vport') : null,
    engineVersion: instance.string('MongoVersion'),
  };
}

function readBackup(backup: WireReader, databaseId: string): BackupObserved {
  const done = backup.number('Status') === 2;
  return {
    id: `${backup.number('BackId')}@${databaseId}`,
    clientToken: backup.string('BackupDesc'),
    databaseId,
    status: done ? 'completed' : 'running',
    sizeBytes: done ? backup.number('BackupSize') * 1024 : null,
    checksum: null,
    createdAt: backup.string('StartTime'),
    completedAt: done ? backup.string('EndTime') : null,
    message: null,
  };
}

export class TencentMongo implements DatabaseRuntime {
  /** Regions this driver created in, by key: where observe looks for a key with no id. */
  private readonly regionsByKey = new Map<string, string>();
  /** The database each backup key was taken of: where observeBackup looks for a key with no id. */
  private readonly databasesByBackupKey = new Map<string, string>();

  constructor(private readonly api: TencentApi) {}

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) return this.byId(ref.externalId, options);
    const region = this.regionsByKey.get(ref.key);
    return region === undefined ? null : this.findByKey(ref.key, region, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    if (desired.type !== 'mongodb') throw new VendorRejectedError(`tencent managed ${desired.type}: TencentDB for MongoDB runs mongodb only`, { field: 'type' });
    const managed = desired.managed;
    if (!managed) throw new Error(`tencent: database "${desired.name}" has no managed region and size`);
    const zone = managed.region;
    const region = regionOfZone(zone);
    this.regionsByKey.set(key, region);
    const existing = await this.findByKey(key, region, options);
    if (existing) return existing;
    const spec = await this.checkSpec(zone, desired, options);
    const doing = `create mongodb instance "${desired.name}" in ${zone}`;
    const request = {
      Memory: spec.memoryGb, Volume: spec.storageGb, ReplicateSetNum: 1, NodeNum: spec.nodes, MongoVersion: mongoVersionCode(desired.version), MachineCode: spec.machine, GoodsNum: 1,
      Zone: zone, ClusterType: 'REPLSET', Password: desired.password, InstanceName: desired.name, Tags: [{ TagKey: KEY_TAG, TagValue: key }, { TagKey: SPEC_TAG, TagValue: managed.size }, MANAGED_TAG],
    };
    const body = WireReader.of(await this.api.call(MONGODB, region, 'CreateDBInstanceHour', request, { doing, signal: options.signal }), `tencent: ${doing}`);
    const [id] = body.strings('InstanceIds');
    if (id === undefined) throw new Error(`tencent: ${doing}: the answer names no instance`);
    const made = await this.byId(`${id}@${region}`, options);
    if (!made) throw new Error(`tencent: ${doing}: instance ${id} is not listed after its create`);
    return made;
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const current = await this.byId(externalId, options);
    if (!current) throw new Error(`tencent: mongodb instance ${externalId} no longer exists`);
    if (current.version !== desired.version || (desired.storageGb !== null && desired.storageGb !== current.storageGb)) {
      throw new UnsupportedError(
        `tencent: mongodb instance ${externalId} runs ${current.version} with ${current.storageGb ?? '?'} GB; cairn does not change a TencentDB for MongoDB instance's version or storage (ModifyDBInstanceSpec and UpgradeDbInstanceVersion are not driven yet): set them back, or replace the database`,
      );
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const { instanceId, region } = parseMongoId(externalId);
    let status = (await this.find(instanceId, region, options))?.number('Status');
    if (status === undefined) return;
    if (status >= 0) {
      await this.api.call(MONGODB, region, 'IsolateDBInstance', { InstanceId: instanceId }, { doing: `isolate mongodb instance ${instanceId}`, signal: options.signal });
      status = (await this.find(instanceId, region, options))?.number('Status');
      if (status === undefined) return;
    }
    // OfflineIsolatedDBInstance takes an isolated instance only: until then, the reconciler comes back.
    if (status >= 0) throw new VendorUnavailableError(`tencent: mongodb instance ${instanceId} is being isolated; it is taken offline once isolated`);
    await this.api.call(MONGODB, region, 'OfflineIsolatedDBInstance', { InstanceId: instanceId }, { doing: `take isolated mongodb instance ${instanceId} offline`, signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const found = await this.byId(externalId, options);
    if (!found?.host || found.port === null) throw new Error(`tencent: mongodb instance ${externalId} has no address yet (${found?.status ?? 'gone'})`);
    return { host: found.host, port: found.port, username: MONGO_USER, database: 'admin' };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const { instanceId, region } = parseMongoId(externalId);
    const doing = `reset the password of ${MONGO_USER} on mongodb instance ${instanceId}`;
    await this.api.call(MONGODB, region, 'ResetDBInstancePassword', { InstanceId: instanceId, UserName: MONGO_USER, Password: password }, { doing, signal: options.signal, idempotent: true });
  }

  async createBackup(databaseExternalId: string, key: string, options: CallOptions = {}): Promise<BackupObserved> {
    const { instanceId, region } = parseMongoId(databaseExternalId);
    this.databasesByBackupKey.set(key, databaseExternalId);
    const existing = await this.backupByKey(databaseExternalId, key, options);
    if (existing) return existing;
    const doing = `back up mongodb instance ${instanceId}`;
    await this.api.call(MONGODB, region, 'CreateBackupDBInstance', { InstanceId: instanceId, BackupMethod: 0, BackupRemark: key }, { doing, signal: options.signal });
    const made = await this.backupByKey(databaseExternalId, key, options);
    if (made) return made;
    // Tencent lists the backup once its task starts: until then it is pending under its key.
    return { id: '', clientToken: key, databaseId: databaseExternalId, status: 'pending', sizeBytes: null, checksum: null, createdAt: new Date().toISOString(), completedAt: null, message: null };
  }

  async observeBackup(ref: ExternalRef, options: CallOptions = {}): Promise<BackupObserved | null> {
    if (ref.externalId) {
      const { backupId, instanceId, region } = parseMongoBackupId(ref.externalId);
      const databaseId = `${instanceId}@${region}`;
      return (await this.backups(databaseId, options)).find((b) => b.id === `${backupId}@${databaseId}`) ?? null;
    }
    const databaseId = this.databasesByBackupKey.get(ref.key);
    return databaseId === undefined ? null : this.backupByKey(databaseId, ref.key, options);
  }

  async deleteBackup(backupExternalId: string, options: CallOptions = {}): Promise<void> {
    if (!(await this.observeBackup({ key: '', externalId: backupExternalId }, options))) return;
    const { backupId, instanceId, region } = parseMongoBackupId(backupExternalId);
    await this.api.call(MONGODB, region, 'DeleteDBBackups', { InstanceId: instanceId, BackupIds: [backupId] }, { doing: `delete backup ${backupId} of mongodb instance ${instanceId}`, signal: options.signal });
  }

  restore(databaseExternalId: string): Promise<DatabaseObserved> {
    return Promise.reject(new UnsupportedError(`tencent: mongodb instance ${databaseExternalId}: ${NO_IN_PLACE_RESTORE}`));
  }

  /** What to ask for, from the zone's spec for this SpecCode and version; refused before sending when Tencent sells no such thing. */
  private async checkSpec(zone: string, desired: DatabaseDesired, options: CallOptions): Promise<{ memoryGb: number; storageGb: number; nodes: number; machine: string }> {
    const doing = `list mongodb specs in ${zone}`;
    const body = WireReader.of(await this.api.call(MONGODB, regionOfZone(zone), 'DescribeSpecInfo', { Zone: zone }, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
    const inZone = body.array('SpecInfoList').filter((s) => s.string('Zone') === zone);
    if (inZone.length === 0) throw new VendorRejectedError(`tencent managed mongodb: zone "${zone}" does not sell MongoDB`, { field: 'region' });
    const items = inZone.flatMap((s) => s.array('SpecItems')).filter((i) => i.number('Status') === 1 && i.number('ClusterType') === 0);
    const code = mongoVersionCode(desired.version);
    const versions = [...new Set(items.map((i) => versionOfCode(i.string('MongoVersionCode'))))];
    if (!items.some((i) => i.string('MongoVersionCode') === code)) {
      throw new VendorRejectedError(`tencent managed mongodb: version "${desired.version}" is not offered in ${zone}; versions: ${versions.join(', ')}`, { field: 'version' });
    }
    const ofVersion = items.filter((i) => i.string('MongoVersionCode') === code);
    const chosen = ofVersion.find((i) => i.string('SpecCode') === desired.managed?.size);
    if (!chosen) {
      throw new VendorRejectedError(`tencent managed mongodb: size "${desired.managed?.size ?? ''}" is not sold in ${zone} for version ${desired.version}; sizes: ${ofVersion.map((i) => i.string('SpecCode')).join(', ')}`, { field: 'size' });
    }
    const min = chosen.number('MinStorage') / 1024;
    const max = chosen.number('MaxStorage') / 1024;
    const storage = desired.storageGb ?? min;
    if (storage < min || storage > max || storage % 10 !== 0) {
      throw new VendorRejectedError(`tencent managed mongodb: storage ${storage} GB is not possible on ${chosen.string('SpecCode')}: ${min} to ${max} GB, in steps of 10`, { field: 'storageGb' });
    }
    return { memoryGb: chosen.number('Memory') / 1024, storageGb: storage, nodes: chosen.number('MinReplicateSetNodeNum') || chosen.number('MinNodeNum'), machine: chosen.string('MachineType') };
  }

  private async describe(region: string, filter: object, doing: string, options: CallOptions): Promise<WireReader[]> {
    return readAllPages(async (at) => {
      const offset = Number(at ?? 0);
      const body = WireReader.of(await this.api.call(MONGODB, region, 'DescribeDBInstances', { ...filter, Offset: offset, Limit: PAGE }, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
      const items = body.array('InstanceDetails');
      return { items, next: nextOffset(offset, items.length, body.number('TotalCount')) };
    }, `tencent: ${doing}`);
  }

  private async byId(externalId: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const { instanceId, region } = parseMongoId(externalId);
    const found = await this.find(instanceId, region, options);
    return found ? readMongo(found, region) : null;
  }

  private async find(instanceId: string, region: string, options: CallOptions): Promise<WireReader | undefined> {
    const [found] = await this.describe(region, { InstanceIds: [instanceId] }, `observe mongodb instance ${instanceId}`, options);
    return found;
  }

  /** The instance tagged with `key` in `region` (every page), not one being taken offline. */
  private async findByKey(key: string, region: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const all = await this.describe(region, { Tags: [{ TagKey: KEY_TAG, TagValue: key }] }, `find mongodb instance tagged ${KEY_TAG}=${key} in ${region}`, options);
    const found = all.map((i) => readMongo(i, region)).find((d) => d.clientToken === key && d.status !== 'deleting');
    return found ?? null;
  }

  private async backups(databaseId: string, options: CallOptions): Promise<BackupObserved[]> {
    const { instanceId, region } = parseMongoId(databaseId);
    const doing = `list backups of mongodb instance ${instanceId}`;
    let listed: WireReader[];
    try {
      listed = await readAllPages(async (at) => {
        const offset = Number(at ?? 0);
        const body = WireReader.of(await this.api.call(MONGODB, region, 'DescribeDBBackups', { InstanceId: instanceId, Offset: offset, Limit: PAGE }, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
        const items = body.array('BackupList');
        return { items, next: nextOffset(offset, items.length, body.number('TotalCount')) };
      }, `tencent: ${doing}`);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return [];
      throw error;
    }
    return listed.map((b) => readBackup(b, databaseId));
  }

  private async backupByKey(databaseId: string, key: string, options: CallOptions): Promise<BackupObserved | null> {
    return (await this.backups(databaseId, options)).find((b) => b.clientToken === key) ?? null;
  }
}
