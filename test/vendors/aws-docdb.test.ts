/**
 * @module Amazon DocumentDB through the aws vendor (the unmodified `@aws-sdk/client-docdb`)
 * against the DocumentDB double, every request and answer checked against DocumentDB's botocore
 * model: a cluster named from the key with one instance, cairn's password and its key tag,
 * creating then available, found by id and by key; a create whose answer was lost found by its
 * name (never a second cluster); region, class and version refused before anything is created;
 * a cluster left without its instance reported down and healed by update; rotation at AWS;
 * delete as instance, then cluster; cluster snapshots keyed by cairn's key; restore refused
 * saying why; postgresql refused by the router until RDS joins it; the validator able to
 * refuse. End to end with a real `cairn serve`: examples/vendors/aws-docdb becomes available
 * with the double's host and cairn's password, a rotation reaches AWS, and a delete takes the
 * final snapshot first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { URLSearchParams } from 'node:url';
import { awsVendor } from '../../src/drivers/aws/index.js';
import type { DatabaseDesired, DatabaseRuntime } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { generateMasterKey } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';
import { BotocoreService } from '../support/botocore-validator.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, startAwsDouble } from '../doubles/aws/server.js';
import { DOCDB_DOCUMENT, startDocdbDouble, type DocdbDouble, type DocdbDoubleOptions } from '../doubles/aws/docdb.js';

const MASTER = generateMasterKey();
const NO_SERVER = { serverExternalId: '', serverAddress: null };
const mongo: DatabaseDesired = {
  name: 'orders-db', type: 'mongodb', version: '5.0', storageGb: null, placement: NO_SERVER, managed: { region: 'eu-west-1', size: 'db.t3.medium' }, password: 'Cairns-Own-Passw0rd',
};

const started: DocdbDouble[] = [];
afterEach(async () => {
  for (const d of started.splice(0)) {
    expect(d.violations, 'requests or answers outside DocumentDB’s model').toEqual([]);
    await d.stop();
  }
});

async function double(options: DocdbDoubleOptions = {}): Promise<DocdbDouble> {
  const d = await startDocdbDouble(options);
  started.push(d);
  return d;
}

async function service(d: DocdbDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = awsVendor.createManagedDatabases?.bind(awsVendor);
  if (!create) throw new Error('aws has no managed databases');
  const config = { providerName: 'aws', spec: { vendor: 'aws', endpoint: d.url }, credentials: { access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' }, dataDir: '', requestTimeoutMs, dataKeys: keyringDataKeys({ active: MASTER, keys: [MASTER] }) };
  return (await create(config)).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('aws managed databases (DocumentDB)', () => {
  it('offers MongoDB', () => {
    expect(awsVendor.managedDatabaseEngines).toEqual(['mongodb', 'postgresql']);
  });

  it("creates a cluster named from the key with one instance, cairn's password and its key tag, creating then available, found by id and by key", async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-mongo-0', mongo);
    expect(created).toMatchObject({ name: 'orders-db', type: 'mongodb', version: '5.0', engineVersion: '5.0.0', size: 'db.t3.medium', status: 'creating', storageGb: null, serverId: '', clientToken: 'cairn-mongo-0', host: null });
    expect(created.id).toMatch(/^eu-west-1\/cairn-docdb-[0-9a-f]{24}$/);
    expect(d.clusters().map((c) => [c.id, c.region, c.engineVersion, c.username, c.password, c.tags])).toEqual([
      [created.id.split('/')[1], 'eu-west-1', '5.0.0', 'cairn', 'Cairns-Own-Passw0rd', { 'cairn-key': 'cairn-mongo-0', Name: 'orders-db', 'managed-by': 'cairn' }],
    ]);
    expect(d.instances().map((i) => [i.id, i.size])).toEqual([[`${created.id.split('/')[1] ?? ''}-1`, 'db.t3.medium']]);
    await untilCreated(databases, [{ key: 'cairn-mongo-0', externalId: created.id }]);
    const host = `${created.id.split('/')[1] ?? ''}.cluster-cabc123.eu-west-1.docdb.amazonaws.com`;
    expect(await databases.observe({ key: 'cairn-mongo-0', externalId: created.id })).toMatchObject({ status: 'available', host, port: 27017 });
    expect(await databases.observe({ key: 'cairn-mongo-0' })).toMatchObject({ id: created.id, status: 'available' });
    expect(await databases.observe({ key: 'x', externalId: 'eu-west-1/cairn-000000000000000000000000' })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host, port: 27017, username: 'cairn', database: 'admin' });
  });

  it('finds a cluster whose create answer was lost by its name and never makes a second one', async () => {
    const d = await double({ slowAnswers: { actions: ['CreateDBCluster'], ms: 600 } });
    const found = await (await service(d, 300)).create('cairn-lost-0', mongo);
    expect(found.clientToken).toBe('cairn-lost-0');
    expect(d.clusters()).toHaveLength(1);
    expect(d.instances()).toHaveLength(1);
    const creates = d.calls.filter((c) => c.action === 'CreateDBCluster').map((c) => c.code ?? 'made');
    expect(creates[0], 'made by the first send, whose answer never came').toBe('made');
    expect(new Set(creates.slice(1)), 'the send again finds it by its name').toEqual(new Set(['DBClusterAlreadyExistsFault']));
  });

  it('refuses a region, class, version or storage DocumentDB does not sell before creating anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...mongo, managed: { region: 'eu-west-1', size: 'db.x9.huge' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', 'aws managed mongodb: instance class "db.x9.huge" is not sold in eu-west-1 for DocumentDB 5.0.0; sizes: db.t3.medium, db.r6g.large, db.r6g.xlarge']);
    const version = await refusal(databases.create('cairn-bad-1', { ...mongo, version: '3.6' }));
    expect([version.field, version.message]).toEqual(['version', 'aws managed mongodb: DocumentDB version "3.6" is not offered in eu-west-1; versions: 4.0.0, 5.0.0']);
    const region = await refusal(databases.create('cairn-bad-2', { ...mongo, managed: { region: 'sa-east-1', size: 'db.t3.medium' } }));
    expect(region.field).toBe('version');
    expect(region.message).toContain('not offered in sa-east-1');
    expect((await refusal(databases.create('cairn-bad-3', { ...mongo, managed: { region: 'Ireland', size: 'db.t3.medium' } }))).field).toBe('region');
    expect((await refusal(databases.create('cairn-bad-4', { ...mongo, storageGb: 20 }))).field).toBe('storageGb');
    expect(d.calls.filter((c) => c.action.startsWith('Create')), 'nothing created for what AWS does not sell').toEqual([]);
  });

  it('reports a cluster without its instance as down and update creates it; rotates at AWS; deletes the instance, then the cluster', async () => {
    const d = await double({ actionMs: 300 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', mongo);
    await untilCreated(databases, [{ key: 'cairn-pw-0', externalId: created.id }]);
    const cluster = created.id.split('/')[1] ?? '';
    d.dropInstances(cluster);
    expect(await databases.observe({ key: 'cairn-pw-0', externalId: created.id })).toMatchObject({ down: expect.stringContaining('no instance') as string, host: null });
    expect(await databases.update(created.id, mongo)).toMatchObject({ status: 'creating' });
    expect(d.instances()).toHaveLength(1);
    await expect(databases.update(created.id, { ...mongo, managed: { region: 'eu-west-1', size: 'db.r6g.large' } })).rejects.toBeInstanceOf(UnsupportedError);
    await databases.setPassword(created.id, 'Cairns-New-Passw0rd');
    expect(d.clusters()[0]?.password).toBe('Cairns-New-Passw0rd');
    await expect(databases.delete(created.id), 'the cluster waits for its instance').rejects.toThrow(new VendorUnavailableError(`aws: DocumentDB cluster ${cluster} is deleted once its instance is gone (deleting)`));
    await new Promise((resolve) => setTimeout(resolve, 400));
    await databases.delete(created.id);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await databases.delete(created.id);
    expect([d.clusters(), d.instances()]).toEqual([[], []]);
    expect(d.calls.filter((c) => c.action.startsWith('Delete')).map((c) => c.action)).toEqual(['DeleteDBInstance', 'DeleteDBCluster']);
  });

  it('takes cluster snapshots keyed by cairn’s key (the same key finds the first), deletes them, and refuses restore saying why', async () => {
    const d = await double({ actionMs: 200 });
    const databases = await service(d);
    const created = await databases.create('cairn-b-0', mongo);
    await untilCreated(databases, [{ key: 'cairn-b-0', externalId: created.id }]);
    const backup = await databases.createBackup(created.id, 'cairn-backup-0');
    expect(backup).toMatchObject({ clientToken: 'cairn-backup-0', databaseId: created.id, status: 'running' });
    expect(await databases.createBackup(created.id, 'cairn-backup-0')).toMatchObject({ id: backup.id });
    expect(d.snapshots().map((s) => s.tags)).toEqual([{ 'cairn-key': 'cairn-backup-0' }]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toMatchObject({ id: backup.id, status: 'completed' });
    await expect(databases.restore(created.id, backup.id, 'k')).rejects.toThrow(/restores a cluster snapshot only into a new cluster/);
    await databases.deleteBackup(backup.id);
    await databases.deleteBackup(backup.id);
    expect(await databases.observeBackup({ key: 'cairn-backup-0', externalId: backup.id })).toBeNull();
  });

  it("the validator refuses a DocumentDB request or answer outside its botocore model", () => {
    const model = new BotocoreService(DOCDB_DOCUMENT);
    expect(model.parseRequest('CreateDBCluster', new URLSearchParams({ Action: 'CreateDBCluster', Version: '2014-10-31', Engine: 'docdb', AllocatedStorage: '20' })).problems).toEqual([
      'CreateDBCluster: DBClusterIdentifier is required (CreateDBClusterMessage)', 'CreateDBCluster: parameter AllocatedStorage is not in CreateDBClusterMessage',
    ]);
    expect(model.serializeAnswer('DescribeDBClusters', { DBClusters: [{ Port: 'x' }] }, 'r').problems).toEqual([expect.stringContaining('Port')]);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'aws', title: 'AWS DocumentDB', engines: ['mongodb', 'postgresql'], example: 'aws-docdb', rotation: 'applied',
  async start() {
    // The Provider's access key is tested through EC2: the DocumentDB double passes those requests on to the EC2 double.
    const ec2 = await startAwsDouble();
    const d = await startDocdbDouble({ actionMs: 100, forwardTo: ec2.url });
    return {
      endpoint: d.url, env: { AWS_CAIRN_CREDENTIALS: JSON.stringify({ access_key_id: AWS_ACCESS_KEY_ID, secret_access_key: AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' }) }, violations: () => [...d.violations, ...ec2.violations], stop: async () => { await d.stop(); await ec2.stop(); },
      held: () => d.clusters().map((c) => ({ host: `${c.id}.cluster-cabc123.${c.region}.docdb.amazonaws.com`, port: 27017, username: 'cairn', database: 'admin', password: c.password })),
      backups: () => d.snapshots().length,
      checkCreated: () => {
        expect(d.clusters()[0]).toMatchObject({ region: 'eu-west-1', engineVersion: '5.0.0', tags: expect.objectContaining({ Name: 'orders-db' }) as Record<string, string> });
        expect(d.instances()[0]).toMatchObject({ size: 'db.t3.medium' });
      },
    };
  },
});
