/**
 * @module RDS for PostgreSQL through the aws vendor (the unmodified `@aws-sdk/client-rds`)
 * against the AWS double, every request and answer checked against RDS's botocore model:
 * instances named after their key (the name is RDS's idempotency) with cairn's password and the
 * key tag, creating and then available; a create whose answer was lost found by that name,
 * never a second instance; region, class, version and storage refused before CreateDBInstance
 * is sent; the password set with ModifyDBInstance; snapshots keyed by the backup's key, found
 * again, outliving their instance and deleted; restore and class changes refused saying why;
 * the validator refusing an RDS request or answer outside the model. End to end with a real
 * `cairn serve`: examples/vendors/aws/database.yaml becomes Ready with the double's host and
 * cairn's password, a rotation reaches RDS, and a delete takes the final snapshot first.
 */
import { describe, expect, it } from 'vitest';
import { awsVendor } from '../../src/drivers/aws/index.js';
import { instanceIdentifier, snapshotIdentifier } from '../../src/drivers/aws/rds.js';
import type { DatabaseDesired, DatabaseRuntime } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError } from '../../src/drivers/errors.js';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, rdsModel, startAwsDouble, type AwsDouble, type AwsDoubleOptions } from '../doubles/aws/server.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';

const KEYS = { access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' };
const setup = vendorTestSetup('aws', 'AWS RDS', (options: AwsDoubleOptions) => startAwsDouble(options));
const { double } = setup;

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'eu-west-1', size: 'db.t4g.micro' }, password: 'Cairns-Own-Passw0rd',
};

async function service(d: AwsDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = awsVendor.createManagedDatabases?.bind(awsVendor);
  if (!create) throw new Error('aws has no managed databases');
  return (await create(setup.config(d.url, { requestTimeoutMs, credentials: KEYS }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);
const sent = (d: AwsDouble, action: string): number => d.calls.filter((c) => c.action === action).length;

describe('aws managed databases (RDS for PostgreSQL)', () => {
  it('offers PostgreSQL', () => {
    expect(awsVendor.managedDatabaseEngines).toEqual(['mongodb', 'postgresql']);
  });

  it("creates an instance named after its key with cairn's password and its key tag, creating and then available, found by id and by key", async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 30 });
    expect(created).toMatchObject({ name: 'orders-db', type: 'postgresql', version: '16', size: 'db.t4g.micro', status: 'creating', storageGb: 30, serverId: '', clientToken: 'cairn-pg-0', host: null });
    expect(created.id).toBe(`eu-west-1/${instanceIdentifier('cairn-pg-0')}`);
    expect(instanceIdentifier('cairn-pg-0')).toMatch(/^cairn-[0-9a-f]{24}$/);
    expect(d.rds.live().map((i) => [i.region, i.cls, i.storage, i.version, i.username, i.password, i.tags])).toEqual([
      ['eu-west-1', 'db.t4g.micro', 30, '16.4', 'cairn', 'Cairns-Own-Passw0rd', { Name: 'orders-db', 'cairn-key': 'cairn-pg-0', 'managed-by': 'cairn' }],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const host = `${instanceIdentifier('cairn-pg-0')}.c0ffee.eu-west-1.rds.amazonaws.com`;
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: created.id })).toMatchObject({ status: 'available', host, port: 5432, engineVersion: '16.4' });
    expect(await databases.observe({ key: 'cairn-pg-0' })).toMatchObject({ id: created.id, status: 'available' });
    expect(await databases.observe({ key: 'cairn-none', externalId: 'eu-west-1/cairn-000000000000000000000000' })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host, port: 5432, username: 'cairn', database: 'postgres' });
    expect(await databases.create('cairn-pg-0', { ...pg, storageGb: 30 }), 'the same key again: the same instance').toMatchObject({ id: created.id });
    expect(sent(d, 'CreateDBInstance')).toBe(1);
    expect(d.violations).toEqual([]);
  });

  it('finds an instance whose create answer was lost by its name, and never makes a second one', async () => {
    const d = await double({ slowAnswers: { actions: ['CreateDBInstance'], ms: 400 } });
    const impatient = await service(d, 150);
    const found = await impatient.create('cairn-lost-0', pg);
    expect(found).toMatchObject({ id: `eu-west-1/${instanceIdentifier('cairn-lost-0')}`, clientToken: 'cairn-lost-0' });
    expect(d.rds.live(), 'one instance').toHaveLength(1);
    expect(d.calls.filter((c) => c.action === 'CreateDBInstance').map((c) => c.code ?? 'created'), 'the resend is refused by RDS: the name is taken').toEqual(['created', 'DBInstanceAlreadyExists']);
    expect(d.violations).toEqual([]);
  });

  it('refuses a region, class, version or storage RDS does not sell before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'eu-west-1', size: 'db.x9.huge' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', 'aws managed postgresql: size "db.x9.huge" is not a DB instance class RDS sells for PostgreSQL in eu-west-1']);
    const placed = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'us-west-2', size: 'db.t4g.micro' } }));
    expect(placed.field).toBe('size');
    const region = await refusal(databases.create('cairn-bad-2', { ...pg, managed: { region: 'Ireland', size: 'db.t4g.micro' } }));
    expect([region.field, region.message]).toEqual(['region', expect.stringContaining('region "Ireland" is not an AWS region name')]);
    const version = await refusal(databases.create('cairn-bad-3', { ...pg, version: '9' }));
    expect([version.field, version.message]).toEqual(['version', 'aws managed postgresql: version "9" is not offered on db.t4g.micro in eu-west-1; versions: 15, 16']);
    const storage = await refusal(databases.create('cairn-bad-4', { ...pg, storageGb: 10 }));
    expect([storage.field, storage.message]).toEqual(['storageGb', 'aws managed postgresql: storage 10 GB is not possible on db.t4g.micro: 20 to 6144 GB']);
    expect(sent(d, 'CreateDBInstance'), 'nothing sent for what RDS does not sell').toBe(0);
    expect(sent(d, 'DescribeOrderableDBInstanceOptions'), 'the catalog is read across its pages').toBeGreaterThan(4);
    expect(d.violations).toEqual([]);
  });

  it('sets the password at RDS, keeps snapshots by key that outlive the instance, deletes, and refuses restores and class changes saying why', async () => {
    const d = await double({ actionMs: 300 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    await untilCreated(databases, [{ key: 'cairn-pw-0', externalId: created.id }]);
    await databases.setPassword(created.id, 'Cairns-New-Passw0rd');
    expect(d.rds.live()[0]?.password).toBe('Cairns-New-Passw0rd');

    const backup = await databases.createBackup(created.id, 'cairn-backup-0');
    expect(backup).toMatchObject({ id: `eu-west-1/${snapshotIdentifier('cairn-backup-0')}`, clientToken: 'cairn-backup-0', databaseId: created.id, status: 'running', sizeBytes: 20 * 1024 ** 3 });
    expect(await databases.createBackup(created.id, 'cairn-backup-0'), 'the same key again: the same snapshot').toMatchObject({ id: backup.id });
    expect(sent(d, 'CreateDBSnapshot')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toMatchObject({ id: backup.id, status: 'completed' });

    await expect(databases.restore(created.id, backup.id, 'k')).rejects.toThrow(new UnsupportedError(`aws rds: DB instance ${created.id}: RDS restores a DB snapshot only into a new DB instance (RestoreDBInstanceFromDBSnapshot), never into the instance it came from, so cairn does not restore RDS databases in place; restore the snapshot at AWS into a new instance and point a Database at it`));
    await expect(databases.update(created.id, { ...pg, managed: { region: 'eu-west-1', size: 'db.t4g.small' } })).rejects.toThrow(/does not change an RDS instance's version, class or storage/);
    expect(await databases.update(created.id, { ...pg, storageGb: 20 })).toMatchObject({ id: created.id, size: 'db.t4g.micro' });

    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.rds.live()).toEqual([]);
    expect(sent(d, 'DeleteDBInstance'), 'deleted once; the final backup is cairn\'s own snapshot, taken before').toBe(1);
    expect(await databases.observeBackup({ key: 'x', externalId: backup.id }), 'the snapshot outlives its instance').toMatchObject({ status: 'completed' });
    await databases.deleteBackup(backup.id);
    await databases.deleteBackup(backup.id);
    expect(d.rds.allSnapshots()).toEqual([]);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    expect(d.violations).toEqual([]);
  });

  it("the validator refuses an RDS request or answer outside RDS's model", () => {
    const params = new URLSearchParams({ Action: 'CreateDBInstance', Version: '2014-10-31', DBInstanceIdentifier: 'x', Engine: 'postgres', ClientToken: 'k' });
    expect(rdsModel.parseRequest('CreateDBInstance', params).problems.join('; ')).toMatch(/DBInstanceClass.*required|ClientToken/);
    expect(rdsModel.serializeAnswer('DescribeDBInstances', { DBInstances: [{ DBInstanceIdentifier: 'x', Colour: 'blue' }] }, 'r').problems).toEqual(['DescribeDBInstances answer.DBInstances[0]: Colour is not a member of DBInstance']);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'aws', title: 'AWS', engines: ['mongodb', 'postgresql'], example: 'aws', rotation: 'applied',
  async start() {
    const d = await startAwsDouble({ actionMs: 100 });
    return {
      endpoint: d.url, env: { AWS_CAIRN_CREDENTIALS: JSON.stringify(KEYS) }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.rds.live().map((i) => ({ host: `${i.id}.c0ffee.${i.region}.rds.amazonaws.com`, port: 5432, username: 'cairn', database: 'postgres', password: i.password })),
      checkCreated: () => expect(d.rds.live()[0]).toMatchObject({ region: 'eu-west-1', cls: 'db.t4g.micro', version: '16.4', storage: 20 }),
      backups: () => d.rds.allSnapshots().length,
    };
  },
});
