/**
 * @module TencentDB for PostgreSQL through the tencent vendor (the SDK's common client,
 * unmodified) against the Tencent double, every request and answer checked against postgres'
 * api.json: instances created with cairn's password and their key tag, creating and then
 * running; a create whose answer was lost found by its tag across pages (never a second
 * instance); zone, class, version and storage refused before CreateInstances is sent; the
 * password reset at Tencent; delete as isolate, then destroy once isolated; backups, restores and changes of
 * spec refused saying why; the validator able to refuse a postgres request. End to end with a
 * real `cairn serve`: examples/vendors/tencent/database.yaml becomes Ready with the double's
 * host and cairn's password, a rotation reaches Tencent, and a delete needs skip_final_backup.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired, DatabaseRuntime } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { tencentVendor } from '../../src/drivers/tencent/index.js';
import { POSTGRES_DOCUMENT, startTencentDouble, TENCENT_TEST_SECRET_ID, type TencentDouble, type TencentDoubleOptions } from '../doubles/tencent/index.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { TencentApiValidator } from '../support/tencent-api-validator.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';

const setup = vendorTestSetup('tencent', 'Tencent Cloud', (options: TencentDoubleOptions) => startTencentDouble(options));
const { double, token } = setup;

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'ap-guangzhou-3', size: 'pg.it.small2' }, password: 'Cairns-Own-Passw0rd',
};

async function service(d: TencentDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = tencentVendor.createManagedDatabases?.bind(tencentVendor);
  if (!create) throw new Error('tencent has no managed databases');
  return (await create(setup.config(d.url, { requestTimeoutMs, credentials: { secret_id: TENCENT_TEST_SECRET_ID, secret_key: token } }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('tencent managed databases', () => {
  it('offers PostgreSQL and MongoDB', () => {
    expect(tencentVendor.managedDatabaseEngines).toEqual(['postgresql', 'mongodb']);
  });

  it("creates an instance with cairn's password and its key tag, creating and then available, found by id and by key", async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 30 });
    expect(created).toMatchObject({ name: 'orders-db', type: 'postgresql', version: '16', size: 'pg.it.small2', status: 'creating', storageGb: 30, serverId: '', clientToken: 'cairn-pg-0', host: null });
    expect(created.id).toMatch(/^postgres-[0-9a-f]{8}@ap-guangzhou$/);
    expect(d.databases().map((i) => [i.name, i.zone, i.spec, i.storage, i.version, i.admin, i.password, i.tags])).toEqual([
      ['orders-db', 'ap-guangzhou-3', 'pg.it.small2', 30, '16', 'cairn', 'Cairns-Own-Passw0rd', { 'cairn-key': 'cairn-pg-0', 'managed-by': 'cairn' }],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const online = await databases.observe({ key: 'cairn-pg-0', externalId: created.id });
    expect(online).toMatchObject({ status: 'available', host: d.databases()[0]?.ip, port: 5432, engineVersion: '16.4' });
    expect(await databases.observe({ key: 'cairn-pg-0' })).toMatchObject({ id: created.id, status: 'available' });
    expect(await databases.observe({ key: 'cairn-none', externalId: 'postgres-00000000@ap-guangzhou' })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host: d.databases()[0]?.ip, port: 5432, username: 'cairn', database: 'postgres' });
  });

  it('finds an instance whose create answer was lost by its tag, across pages, and never makes a second one', async () => {
    const d = await double({ pageSize: 2, slowAnswers: { operationIds: ['CreateInstances'], ms: 400 } });
    const patient = await service(d);
    for (const n of [1, 2, 3]) await patient.create(`cairn-other-${n}`, { ...pg, name: `other-${n}` });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = await patient.create('cairn-lost-0', pg);
    expect(d.databases().filter((i) => i.tags['cairn-key'] === 'cairn-lost-0')).toEqual([expect.objectContaining({ name: 'orders-db' })]);
    expect(found.clientToken).toBe('cairn-lost-0');
    expect(d.calls.filter((c) => c.operationId === 'CreateInstances'), 'three others and the lost one, sent once').toHaveLength(4);
  });

  it('refuses a zone, class, version or storage Tencent does not sell before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'ap-guangzhou-3', size: 'S5.SMALL1' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', 'tencent managed postgresql: size "S5.SMALL1" is not sold in ap-guangzhou-3 for version 16; sizes: pg.it.small2, pg.it.medium4, pg.it.large8']);
    const zone = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'ap-singapore-2', size: 'pg.it.small2' } }));
    expect([zone.field, zone.message]).toEqual(['region', expect.stringContaining('zone "ap-singapore-2" does not sell PostgreSQL')]);
    const version = await refusal(databases.create('cairn-bad-2', { ...pg, version: '9' }));
    expect([version.field, version.message]).toEqual(['version', expect.stringContaining('version "9" is not offered in ap-guangzhou-3')]);
    const storage = await refusal(databases.create('cairn-bad-3', { ...pg, storageGb: 15 }));
    expect([storage.field, storage.message]).toEqual(['storageGb', 'tencent managed postgresql: storage 15 GB is not possible on pg.it.small2: 10 to 1000 GB, in steps of 10']);
    const mongo = await refusal(databases.create('cairn-bad-4', { ...pg, type: 'mongodb' }));
    expect([mongo.field, mongo.message], 'a mongodb Database goes to TencentDB for MongoDB, which sells no version 16').toEqual(['version', expect.stringContaining('tencent managed mongodb: version "16"')]);
    expect(d.calls.filter((c) => c.operationId === 'CreateInstances'), 'nothing sent for what Tencent does not sell').toEqual([]);
  });

  it('resets the password at Tencent, deletes by isolate then destroy, and refuses backups, restores and spec changes saying why', async () => {
    const d = await double({ actionMs: 1_000 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    await databases.setPassword(created.id, 'Cairns-New-Passw0rd');
    expect(d.databases()[0]?.password).toBe('Cairns-New-Passw0rd');
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/CreateBaseBackup takes no name or client token.*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    await expect(databases.update(created.id, { ...pg, managed: { region: 'ap-guangzhou-3', size: 'pg.it.medium4' } })).rejects.toThrow(/does not change a TencentDB instance's version, spec or storage/);
    expect(await databases.update(created.id, { ...pg, storageGb: 10 })).toMatchObject({ id: created.id, size: 'pg.it.small2' });
    await expect(databases.delete(created.id), 'not destroyed while it isolates: the reconciler comes back').rejects.toThrow(new VendorUnavailableError(`tencent: postgres instance ${d.databases()[0]?.id ?? ''} is isolating; it is destroyed once isolated`));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.databases()).toEqual([]);
    expect(d.calls.filter((c) => ['IsolateDBInstances', 'DestroyDBInstance'].includes(c.operationId)).map((c) => c.operationId), 'isolated once, destroyed once').toEqual(['IsolateDBInstances', 'DestroyDBInstance']);
  });

  it("the validator refuses a postgres request or answer outside postgres' api.json", () => {
    const validator = new TencentApiValidator(POSTGRES_DOCUMENT);
    expect(validator.request('CreateInstances', { SpecCode: 'pg.it.small2', Storage: -10, InstanceCount: 1, Period: 1, Charset: 'UTF8', AdminName: 'cairn', AdminPassword: 'x', Zone: 'z', ClientToken: 'k' })).toEqual([
      'CreateInstances request.ClientToken: not a member of CreateInstancesRequest', 'CreateInstances request.Storage: should be a non-negative integer (uint64), got -10',
    ]);
    expect(validator.response('DescribeDBInstances', { TotalCount: 1, RequestId: 'r' })).toEqual(['DescribeDBInstances answer.DBInstanceSet: required by DescribeDBInstancesResponse, missing']);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'tencent', title: 'Tencent Cloud', engines: ['postgresql', 'mongodb'], example: 'tencent', rotation: 'applied', finalBackupRefusal: 'CreateBaseBackup takes no name or client token',
  async start() {
    const d = await startTencentDouble({ token: 'tencent-serve-key', actionMs: 100 });
    return {
      endpoint: d.url, env: { TENCENTCLOUD_CREDENTIALS: JSON.stringify({ secret_id: TENCENT_TEST_SECRET_ID, secret_key: 'tencent-serve-key' }) }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.databases().map((i) => ({ host: i.ip, port: 5432, username: 'cairn', database: 'postgres', password: i.password })),
      checkCreated: () => expect(d.databases()[0]).toMatchObject({ name: 'orders-db', zone: 'ap-guangzhou-3', spec: 'pg.it.small2', version: '16', storage: 10 }),
    };
  },
});
