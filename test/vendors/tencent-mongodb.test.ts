/**
 * @module TencentDB for MongoDB through the tencent vendor (the SDK's common client, unmodified)
 * against the Tencent double, every request and answer checked against mongodb's api.json: the
 * engine router sends a mongodb Database to TencentDB for MongoDB and a postgresql one to
 * TencentDB for PostgreSQL; instances created with cairn's password and their key tag, found by
 * id and by key; a create whose answer was lost found by its tag across pages (never a second
 * instance); zone, spec, version and storage refused before CreateDBInstanceHour is sent; the
 * password reset at Tencent; backups keyed by BackupRemark (the same key never backs up twice),
 * observed, deleted; restore refused saying why; delete as isolate, then offline once isolated;
 * the validator able to refuse a mongodb request.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired, DatabaseRuntime } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { tencentVendor } from '../../src/drivers/tencent/index.js';
import { MONGODB_DOCUMENT, startTencentDouble, TENCENT_TEST_SECRET_ID, type TencentDouble, type TencentDoubleOptions } from '../doubles/tencent/index.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { TencentApiValidator } from '../support/tencent-api-validator.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';

const setup = vendorTestSetup('tencent', 'Tencent Cloud', (options: TencentDoubleOptions) => startTencentDouble(options));
const { double, token } = setup;

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const mongo: DatabaseDesired = {
  name: 'events-db', type: 'mongodb', version: '6.0', storageGb: null, placement: NO_SERVER, managed: { region: 'ap-guangzhou-3', size: 'mongo.ge.2c4g' }, password: 'Cairns-Own-Passw0rd',
};

async function service(d: TencentDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = tencentVendor.createManagedDatabases?.bind(tencentVendor);
  if (!create) throw new Error('tencent has no managed databases');
  return (await create(setup.config(d.url, { requestTimeoutMs, credentials: { secret_id: TENCENT_TEST_SECRET_ID, secret_key: token } }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('tencent managed mongodb', () => {
  it('offers PostgreSQL and MongoDB, each engine sent to its own service', async () => {
    expect(tencentVendor.managedDatabaseEngines).toEqual(['postgresql', 'mongodb']);
    const d = await double();
    const databases = await service(d);
    const pg = await databases.create('cairn-pg-0', { ...mongo, type: 'postgresql', version: '16', name: 'orders-db', managed: { region: 'ap-guangzhou-3', size: 'pg.it.small2' } });
    const mg = await databases.create('cairn-mg-0', mongo);
    expect([pg.id, mg.id]).toEqual([expect.stringMatching(/^postgres-/), expect.stringMatching(/^cmgo-[0-9a-f]{8}@ap-guangzhou$/)]);
    expect([d.databases().map((i) => i.name), d.mongos().map((i) => i.name)]).toEqual([['orders-db'], ['events-db']]);
    expect(await databases.observe({ key: 'cairn-mg-0', externalId: mg.id })).toMatchObject({ type: 'mongodb', clientToken: 'cairn-mg-0' });
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: pg.id })).toMatchObject({ type: 'postgresql', clientToken: 'cairn-pg-0' });
  });

  it("creates a replica set with cairn's password and its key tag, creating and then available, found by id and by key", async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-mg-1', { ...mongo, storageGb: 30 });
    expect(created).toMatchObject({ name: 'events-db', type: 'mongodb', version: '6.0', size: 'mongo.ge.2c4g', status: 'creating', storageGb: 30, serverId: '', clientToken: 'cairn-mg-1', host: null });
    expect(d.mongos().map((i) => [i.zone, i.memoryGb, i.volumeGb, i.nodes, i.version, i.password, i.tags])).toEqual([
      ['ap-guangzhou-3', 4, 30, 3, 'MONGO_60_WT', 'Cairns-Own-Passw0rd', { 'cairn-key': 'cairn-mg-1', 'cairn-spec': 'mongo.ge.2c4g', 'managed-by': 'cairn' }],
    ]);
    await untilCreated(databases, [{ key: 'cairn-mg-1', externalId: created.id }]);
    expect(await databases.observe({ key: 'cairn-mg-1', externalId: created.id })).toMatchObject({ status: 'available', host: d.mongos()[0]?.ip, port: 27017, engineVersion: 'MONGO_60_WT' });
    expect(await databases.observe({ key: 'cairn-mg-1' })).toMatchObject({ id: created.id, status: 'available' });
    expect(await databases.observe({ key: 'cairn-none', externalId: 'cmgo-00000000@ap-guangzhou' })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host: d.mongos()[0]?.ip, port: 27017, username: 'mongouser', database: 'admin' });
    expect(await databases.update(created.id, { ...mongo, storageGb: 30 })).toMatchObject({ id: created.id });
    await expect(databases.update(created.id, { ...mongo, version: '5.0' })).rejects.toBeInstanceOf(UnsupportedError);
    expect(d.violations).toEqual([]);
  });

  it('finds an instance whose create answer was lost by its tag, across pages, and never makes a second one', async () => {
    const d = await double({ pageSize: 2, slowAnswers: { operationIds: ['CreateDBInstanceHour'], ms: 400 } });
    const patient = await service(d);
    for (const n of [1, 2, 3]) await patient.create(`cairn-other-${n}`, { ...mongo, name: `other-${n}` });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', mongo)).rejects.toBeInstanceOf(VendorUnavailableError);
    await sleep(500);
    const found = await patient.create('cairn-lost-0', mongo);
    expect(d.mongos().filter((i) => i.tags['cairn-key'] === 'cairn-lost-0')).toHaveLength(1);
    expect(found.clientToken).toBe('cairn-lost-0');
    expect(d.calls.filter((c) => c.operationId === 'CreateDBInstanceHour'), 'three others and the lost one, sent once').toHaveLength(4);
  });

  it('refuses a zone, spec, version or storage Tencent does not sell before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...mongo, managed: { region: 'ap-guangzhou-3', size: 'mongo.huge' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', 'tencent managed mongodb: size "mongo.huge" is not sold in ap-guangzhou-3 for version 6.0; sizes: mongo.ge.2c4g, mongo.ge.4c8g']);
    const zone = await refusal(databases.create('cairn-bad-1', { ...mongo, managed: { region: 'ap-singapore-2', size: 'mongo.ge.2c4g' } }));
    expect([zone.field, zone.message]).toEqual(['region', 'tencent managed mongodb: zone "ap-singapore-2" does not sell MongoDB']);
    const version = await refusal(databases.create('cairn-bad-2', { ...mongo, version: '3.6' }));
    expect([version.field, version.message]).toEqual(['version', 'tencent managed mongodb: version "3.6" is not offered in ap-guangzhou-3; versions: 4.4, 5.0, 6.0']);
    const storage = await refusal(databases.create('cairn-bad-3', { ...mongo, storageGb: 15 }));
    expect([storage.field, storage.message]).toEqual(['storageGb', 'tencent managed mongodb: storage 15 GB is not possible on mongo.ge.2c4g: 10 to 250 GB, in steps of 10']);
    expect(d.calls.filter((c) => c.operationId === 'CreateDBInstanceHour'), 'nothing sent for what Tencent does not sell').toEqual([]);
  });

  it('resets the password, backs up under its key once, deletes the backup, refuses restore saying why, and deletes by isolate then offline', async () => {
    const d = await double({ actionMs: 300 });
    const databases = await service(d);
    const created = await databases.create('cairn-mg-2', mongo);
    await untilCreated(databases, [{ key: 'cairn-mg-2', externalId: created.id }]);
    await databases.setPassword(created.id, 'Cairns-New-Passw0rd');
    expect(d.mongos()[0]?.password).toBe('Cairns-New-Passw0rd');

    const backup = await databases.createBackup(created.id, 'cairn-backup-0');
    expect(backup).toMatchObject({ id: expect.stringMatching(/^\d+@cmgo-[0-9a-f]{8}@ap-guangzhou$/), clientToken: 'cairn-backup-0', databaseId: created.id, status: 'running' });
    expect(await databases.createBackup(created.id, 'cairn-backup-0'), 'the same key again is the first backup').toMatchObject({ id: backup.id });
    expect(d.calls.filter((c) => c.operationId === 'CreateBackupDBInstance')).toHaveLength(1);
    await sleep(350);
    expect(await databases.observeBackup({ key: 'cairn-backup-0', externalId: backup.id })).toMatchObject({ status: 'completed', sizeBytes: 2048 * 1024 });
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toMatchObject({ id: backup.id });
    await expect(databases.restore(created.id, backup.id, 'cairn-restore-0')).rejects.toThrow(/RestoreDBInstance rolls databases and collections.*does not restore a backup in place/);
    await databases.deleteBackup(backup.id);
    await databases.deleteBackup(backup.id);
    expect(d.mongoBackups()).toEqual([]);
    expect(await databases.observeBackup({ key: 'cairn-backup-0', externalId: backup.id })).toBeNull();

    await expect(databases.delete(created.id), 'not taken offline while it isolates').rejects.toBeInstanceOf(VendorUnavailableError);
    await sleep(350);
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.mongos()).toEqual([]);
    expect(d.calls.filter((c) => ['IsolateDBInstance', 'OfflineIsolatedDBInstance'].includes(c.operationId)).map((c) => c.operationId)).toEqual(['IsolateDBInstance', 'OfflineIsolatedDBInstance']);
    expect(d.violations).toEqual([]);
  });

  it("the validator refuses a mongodb request or answer outside mongodb's api.json", () => {
    const validator = new TencentApiValidator(MONGODB_DOCUMENT);
    expect(validator.request('CreateDBInstanceHour', { Memory: 4, Volume: -10, ReplicateSetNum: 1, NodeNum: 3, MongoVersion: 'MONGO_60_WT', MachineCode: 'HCD', GoodsNum: 1, Zone: 'z', ClusterType: 'REPLSET', ClientToken: 'k' })).toEqual([
      'CreateDBInstanceHour request.ClientToken: not a member of CreateDBInstanceHourRequest', 'CreateDBInstanceHour request.Volume: should be a non-negative integer (uint64), got -10',
    ]);
    expect(validator.response('DescribeDBInstances', { TotalCount: 1, RequestId: 'r' })).toEqual(['DescribeDBInstances answer.InstanceDetails: required by DescribeDBInstancesResponse, missing']);
  });
});
