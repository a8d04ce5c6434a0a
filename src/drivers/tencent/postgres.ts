/**
 * @module TencentDB for PostgreSQL (API 2017-03-12, through the SDK's common client) as cairn's
 * DatabaseRuntime. A Database's `managed.region` is a zone (`ap-guangzhou-3`), its
 * `managed.size` a SpecCode; both, with the storage, are checked against DescribeClasses before
 * CreateInstances is sent (pay-as-you-go, one instance, cairn's password as AdminPassword for the
 * AdminName `cairn`). Tencent's postgres CreateInstances has no ClientToken (its api.json names
 * none), so the instance carries its key as the `cairn-key` tag (with `managed-by: cairn`) and a
 * create first looks for it (DescribeDBInstances, `db-tag-key` filter, every page): a create
 * whose answer was lost is found, never made twice. cairn's id is `<DBInstanceId>@<region>`.
 * Observe by key alone looks in the region this driver last created that key in (Tencent has no
 * cross-region list); after a restart the reconciler's create finds it by its tag in the
 * Database's region. setPassword is ResetAccountPassword; delete is IsolateDBInstances, then
 * DestroyDBInstance once the instance is isolated.
 *
 * Backups are refused for now, saying why: CreateBaseBackup takes no name or token, so a backup
 * whose answer was lost could not be told from Tencent's own; restore would be CloneDBInstance
 * (a new instance), which is not an in-place restore.
 */
import type { CallOptions, DatabaseDesired, DatabaseEndpoint, DatabaseObserved, DatabaseRuntime, ExternalRef, VendorDatabaseStatus } from '../contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { ManagedDatabasesWithoutBackups } from '../kit/backups-refused.js';
import { readAllPages } from '../kit/pagination.js';
import { WireReader } from '../kit/wire-reader.js';
import { tencentCode } from './errors.js';
import { POSTGRES, type TencentApi } from './sdk-client.js';
import { nextOffset, regionOfZone } from './wire-format.js';

/** Instances per page (DescribeDBInstances' most). */
const PAGE = 100;
/** The tag keys cairn puts on what it makes. */
export const KEY_TAG = 'cairn-key';
export const MANAGED_TAG = { TagKey: 'managed-by', TagValue: 'cairn' };
/** The administrator cairn names (Tencent forbids `postgres`). */
export const ADMIN_NAME = 'cairn';

/** Why cairn takes no backups of TencentDB for PostgreSQL yet (said in every refusal). */
export const NO_KEYED_BACKUPS =
  "TencentDB for PostgreSQL's CreateBaseBackup takes no name or client token (a backup whose answer was lost could not be told from another), and its only restore, CloneDBInstance, makes a new instance rather than restoring in place, so cairn does not take or restore backups of it; " +
  'Tencent takes its own daily backups; to delete one without a final backup, set the annotation cairn.dev/skip-final-backup: "true"';

/** `postgres-abc@ap-guangzhou` → its parts; a refusal for an id that is not cairn's. */
export function parseDatabaseId(externalId: string): { instanceId: string; region: string } {
  const match = /^(postgres-[a-z0-9]+)@([a-z]+-[a-z0-9-]+)$/.exec(externalId);
  if (!match) throw new VendorRejectedError(`tencent: "${externalId}" is not a TencentDB for PostgreSQL id of cairn's (postgres-…@<region>)`);
  return { instanceId: match[1]!, region: match[2]! };
}

/** DBInstanceStatus as cairn's status. */
export function readDatabaseStatus(status: string): VendorDatabaseStatus {
  if (['applying', 'init', 'initing'].includes(status)) return 'creating';
  if (['isolating', 'isolated', 'recycling', 'recycled', 'offlining', 'offline'].includes(status)) return 'deleting';
  if (['restoring', 'cloning'].includes(status)) return 'restoring';
  return 'available';
}

function readDatabase(instance: WireReader, region: string): DatabaseObserved {
  const tags = instance.array('TagList');
  const key = tags.find((t) => t.string('TagKey') === KEY_TAG)?.string('TagValue') ?? '';
  const net = instance.array('DBInstanceNetInfo').find((n) => n.string('NetType') === 'private') ?? instance.array('DBInstanceNetInfo')[0];
  const status = readDatabaseStatus(instance.string('DBInstanceStatus'));
  return {
    id: `${instance.string('DBInstanceId')}@${region}`,
    name: instance.string('DBInstanceName'),
    clientToken: key,
    serverId: '',
    type: 'postgresql',
    version: instance.string('DBMajorVersion'),
    storageGb: instance.number('DBInstanceStorage'),
    size: instance.string('DBInstanceClass'),
    status,
    host: status === 'available' && net ? net.string('Ip') || net.string('Address') : null,
    port: status === 'available' && net ? net.number('Port') : null,
    engineVersion: instance.string('DBVersion'),
  };
}

export class TencentPostgres extends ManagedDatabasesWithoutBackups implements DatabaseRuntime {
  /** Regions this driver created in, by key: where observe looks for a key with no id. */
  private readonly regionsByKey = new Map<string, string>();

  constructor(private readonly api: TencentApi) {
    super((id) => `tencent: postgres instance ${id}: ${NO_KEYED_BACKUPS}`);
  }

  async observe(ref: ExternalRef, options: CallOptions = {}): Promise<DatabaseObserved | null> {
    if (ref.externalId) return this.byId(ref.externalId, options);
    const region = this.regionsByKey.get(ref.key);
    return region === undefined ? null : this.findByKey(ref.key, region, options);
  }

  async create(key: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    if (desired.type !== 'postgresql') throw new VendorRejectedError(`tencent managed ${desired.type}: TencentDB through cairn runs postgresql only`, { field: 'type' });
    const managed = desired.managed;
    if (!managed) throw new Error(`tencent: database "${desired.name}" has no managed region and size`);
    const zone = managed.region;
    const region = regionOfZone(zone);
    this.regionsByKey.set(key, region);
    const existing = await this.findByKey(key, region, options);
    if (existing) return existing;
    const storage = await this.checkClass(zone, desired, options);
    const doing = `create postgres instance "${desired.name}" in ${zone}`;
    const request = {
      SpecCode: managed.size, Storage: storage, InstanceCount: 1, Period: 1, Charset: 'UTF8', AdminName: ADMIN_NAME, AdminPassword: desired.password, Zone: zone,
      DBMajorVersion: desired.version, InstanceChargeType: 'POSTPAID_BY_HOUR', Name: desired.name, TagList: [{ TagKey: KEY_TAG, TagValue: key }, MANAGED_TAG],
    };
    const body = WireReader.of(await this.api.call(POSTGRES, region, 'CreateInstances', request, { doing, signal: options.signal }), `tencent: ${doing}`);
    const [id] = body.strings('DBInstanceIdSet');
    if (id === undefined) throw new Error(`tencent: ${doing}: the answer names no instance`);
    const made = await this.byId(`${id}@${region}`, options);
    if (!made) throw new Error(`tencent: ${doing}: instance ${id} is not listed after its create`);
    return made;
  }

  async update(externalId: string, desired: DatabaseDesired, options: CallOptions = {}): Promise<DatabaseObserved> {
    const current = await this.byId(externalId, options);
    if (!current) throw new Error(`tencent: postgres instance ${externalId} no longer exists`);
    if (current.version !== desired.version || current.size !== desired.managed?.size || (desired.storageGb !== null && desired.storageGb !== current.storageGb)) {
      throw new UnsupportedError(
        `tencent: postgres instance ${externalId} runs ${current.version} on ${current.size ?? '?'} with ${current.storageGb ?? '?'} GB; cairn does not change a TencentDB instance's version, spec or storage (ModifyDBInstanceSpec and UpgradeDBInstanceMajorVersion are not driven yet): set them back, or replace the database`,
      );
    }
    return current;
  }

  async delete(externalId: string, options: CallOptions = {}): Promise<void> {
    const { instanceId, region } = parseDatabaseId(externalId);
    let status = (await this.find(instanceId, region, options))?.string('DBInstanceStatus');
    if (status === undefined) return;
    if (status !== 'isolating' && status !== 'isolated') {
      await this.api.call(POSTGRES, region, 'IsolateDBInstances', { DBInstanceIdSet: [instanceId] }, { doing: `isolate postgres instance ${instanceId}`, signal: options.signal });
      status = (await this.find(instanceId, region, options))?.string('DBInstanceStatus');
      if (status === undefined) return;
    }
    // DestroyDBInstance takes an isolated instance only: while it isolates, the reconciler comes back.
    if (status !== 'isolated') throw new VendorUnavailableError(`tencent: postgres instance ${instanceId} is ${status}; it is destroyed once isolated`);
    await this.api.call(POSTGRES, region, 'DestroyDBInstance', { DBInstanceId: instanceId }, { doing: `destroy postgres instance ${instanceId}`, signal: options.signal });
  }

  async endpoint(externalId: string, options: CallOptions = {}): Promise<DatabaseEndpoint> {
    const found = await this.byId(externalId, options);
    if (!found?.host || found.port === null) throw new Error(`tencent: postgres instance ${externalId} has no address yet (${found?.status ?? 'gone'})`);
    return { host: found.host, port: found.port, username: ADMIN_NAME, database: 'postgres' };
  }

  async setPassword(externalId: string, password: string, options: CallOptions = {}): Promise<void> {
    const { instanceId, region } = parseDatabaseId(externalId);
    const doing = `reset the password of ${ADMIN_NAME} on postgres instance ${instanceId}`;
    await this.api.call(POSTGRES, region, 'ResetAccountPassword', { DBInstanceId: instanceId, UserName: ADMIN_NAME, Password: password }, { doing, signal: options.signal, idempotent: true });
  }

  /** The storage to ask for: the Database's, or the class's least; refused before sending when the zone sells no such class. */
  private async checkClass(zone: string, desired: DatabaseDesired, options: CallOptions): Promise<number> {
    const doing = `list postgres ${desired.version} classes in ${zone}`;
    let body: WireReader;
    try {
      body = WireReader.of(await this.api.call(POSTGRES, regionOfZone(zone), 'DescribeClasses', { Zone: zone, DBEngine: 'postgresql', DBMajorVersion: desired.version }, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
    } catch (error) {
      const code = tencentCode((error as { cause?: unknown }).cause);
      if (code?.includes('Zone')) throw new VendorRejectedError(`tencent managed postgresql: zone "${zone}" does not sell PostgreSQL (${code})`, { field: 'region' });
      if (code?.includes('Version')) throw new VendorRejectedError(`tencent managed postgresql: version "${desired.version}" is not offered in ${zone} (${code})`, { field: 'version' });
      throw error;
    }
    const classes = body.array('ClassInfoSet');
    const chosen = classes.find((c) => c.string('SpecCode') === desired.managed?.size);
    if (!chosen) {
      throw new VendorRejectedError(`tencent managed postgresql: size "${desired.managed?.size ?? ''}" is not sold in ${zone} for version ${desired.version}; sizes: ${classes.map((c) => c.string('SpecCode')).join(', ')}`, { field: 'size' });
    }
    const min = chosen.number('MinStorage');
    const max = chosen.number('MaxStorage');
    const storage = desired.storageGb ?? min;
    if (storage < min || storage > max || storage % 10 !== 0) {
      throw new VendorRejectedError(`tencent managed postgresql: storage ${storage} GB is not possible on ${chosen.string('SpecCode')}: ${min} to ${max} GB, in steps of 10`, { field: 'storageGb' });
    }
    return storage;
  }

  private async describe(region: string, filters: Array<{ Name: string; Values: string[] }>, doing: string, options: CallOptions): Promise<WireReader[]> {
    return readAllPages(async (at) => {
      const offset = Number(at ?? 0);
      const body = WireReader.of(await this.api.call(POSTGRES, region, 'DescribeDBInstances', { Filters: filters, Offset: offset, Limit: PAGE }, { doing, signal: options.signal, idempotent: true }), `tencent: ${doing}`);
      const items = body.array('DBInstanceSet');
      return { items, next: nextOffset(offset, items.length, body.number('TotalCount')) };
    }, `tencent: ${doing}`);
  }

  private async byId(externalId: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const { instanceId, region } = parseDatabaseId(externalId);
    const found = await this.find(instanceId, region, options);
    return found ? readDatabase(found, region) : null;
  }

  private async find(instanceId: string, region: string, options: CallOptions): Promise<WireReader | undefined> {
    const [found] = await this.describe(region, [{ Name: 'db-instance-id', Values: [instanceId] }], `observe postgres instance ${instanceId}`, options);
    return found;
  }

  /** The instance tagged with `key` in `region` (every page of the cairn-key tagged ones), not one being destroyed. */
  private async findByKey(key: string, region: string, options: CallOptions): Promise<DatabaseObserved | null> {
    const all = await this.describe(region, [{ Name: 'db-tag-key', Values: [KEY_TAG] }], `find postgres instance tagged ${KEY_TAG}=${key} in ${region}`, options);
    const found = all.map((i) => readDatabase(i, region)).find((d) => d.clientToken === key && d.status !== 'deleting');
    return found ?? null;
  }
}
