/**
 * @module IONOS's managed PostgreSQL (DBaaS) against the IONOS double, which serves the Cloud API
 * and the DBaaS PostgreSQL API on one host (every request and answer checked against IONOS's
 * documents): the DBaaS base derived from `spec.endpoint`, clusters created with the key in their
 * display name and connected to cairn's data center (the servers') and its private LAN at a free address, a create
 * whose answer was lost found by `filter.name` (never a second cluster), region, size, storage,
 * version and password refused before anything is sent, a resize and version upgrade in place
 * followed until AVAILABLE, cairn's password reaching the cluster, and password and backup requests
 * refused saying why. End to end with a real `cairn serve`: examples/vendors/ionos/database.yaml
 * becomes available, its credentials are the double's host and cairn's password, a delete stalls
 * on the final backup naming the annotation, and with `skip_final_backup` leaves nothing.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired, DatabaseRuntime } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { databaseApiBase, ionosVendor } from '../../src/drivers/ionos/index.js';
import { startIonosDouble, type IonosDouble, type IonosDoubleOptions } from '../doubles/ionos.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';

const { config, double } = vendorTestSetup('ionos', 'IONOS', (options: IonosDoubleOptions) => startIonosDouble(options));

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'de/fra', size: 'db-2c-4gb' }, password: 'cairns-own-password-0123',
};

async function service(d: IonosDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = ionosVendor.createManagedDatabases?.bind(ionosVendor);
  if (!create) throw new Error('ionos has no managed databases');
  const driver = await create(config(d.url, { requestTimeoutMs }));
  return driver.databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('ionos managed databases', () => {
  it('offers PostgreSQL, on the DBaaS API beside the Cloud API', () => {
    expect(ionosVendor.managedDatabaseEngines).toEqual(['postgresql']);
    expect(databaseApiBase('https://api.ionos.com/cloudapi/v6', 'postgresql')).toBe('https://api.ionos.com/databases/postgresql');
    expect(databaseApiBase('http://127.0.0.1:9000/cloudapi/v6', 'mongodb')).toBe('http://127.0.0.1:9000/databases/mongodb');
    expect(databaseApiBase('https://proxy.example.com/ionos', 'postgresql')).toBe('https://proxy.example.com/ionos/databases/postgresql');
  });

  it('creates a one-instance cluster named with its key, on cairn\'s data center and its private LAN at a free address, BUSY and then available', async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    await (await ionosVendor.createCloudDriver(config(d.url))).servers.create('cairn-web-0', { name: 'web-1', region: 'de/fra', size: 'e-1c-2gb', image: 'debian-12' });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 30 });
    expect(created).toMatchObject({ name: 'orders-db', type: 'postgresql', version: '16', size: 'db-2c-4gb', status: 'creating', storageGb: 30, serverId: '', clientToken: 'cairn-pg-0' });
    const other = await databases.create('cairn-pg-1', { ...pg, name: 'events-db', managed: { region: 'de/fra', size: 'db-1c-2gb' } });
    const [dc] = d.datacenters();
    expect(dc, "the servers' data center, with a private LAN beside the servers' public one").toMatchObject({ name: 'cairn-de/fra', location: 'de/fra', lans: [{ id: 1, name: 'cairn-public', public: true }, { id: 2, name: 'cairn-private', public: false }] });
    expect(d.postgresClusters().map((c) => [c.displayName, c.postgresVersion, c.cores, c.ram, c.storageSize, c.location, c.connection, c.username])).toEqual([
      ['orders-db [cairn-key=cairn-pg-0]', '16', 2, 4096, 30 * 1024, 'de/fra', { datacenterId: dc?.id, lanId: '2', cidr: '192.168.240.10/24' }, 'cairn'],
      ['events-db [cairn-key=cairn-pg-1]', '16', 1, 2048, 20 * 1024, 'de/fra', { datacenterId: dc?.id, lanId: '2', cidr: '192.168.240.11/24' }, 'cairn'],
    ]);
    expect(d.datacenters(), 'the data center and LAN are made once').toHaveLength(1);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }, { key: 'cairn-pg-1' }]);
    const cluster = d.postgresClusters()[0];
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: created.id })).toMatchObject({ status: 'available', host: cluster?.dnsName, port: 5432, engineVersion: '16' });
    expect(await databases.observe({ key: 'cairn-pg-1' })).toMatchObject({ id: other.id, status: 'available', size: 'db-1c-2gb' });
    expect(await databases.observe({ key: 'cairn-none', externalId: '00000000-0000-4000-8000-000000000000' })).toBeNull();
  });

  it('finds a cluster whose create answer was lost by the key in its name, and never makes a second one', async () => {
    const d = await double({ slowAnswers: { operationIds: ['clustersPost'], ms: 400 } });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await service(d);
    const found = await patient.create('cairn-lost-0', pg);
    expect(d.postgresClusters()).toEqual([expect.objectContaining({ id: found.id, displayName: 'orders-db [cairn-key=cairn-lost-0]' })]);
    expect(d.calls.filter((c) => c.operationId === 'clustersGet').map((c) => c.path)).toContain('/databases/postgresql/clusters?filter.name=%5Bcairn-key%3Dcairn-lost-0%5D');
    expect(d.calls.filter((c) => c.operationId === 'clustersPost')).toHaveLength(1);
    expect(await patient.create('CAIRN-LOST-0', pg), 'filter.name ignores case; the key must match exactly').not.toMatchObject({ id: found.id });
  });

  it('refuses a region, size, storage, version or password IONOS would not take before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'de/fra', size: 'e-2c-4gb' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', 'ionos managed database: size "e-2c-4gb" is not offered; sizes: db-1c-2gb, db-2c-4gb, db-2c-8gb, db-4c-8gb, db-4c-16gb, db-8c-32gb']);
    const region = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'de/fkb', size: 'db-2c-4gb' } }));
    expect([region.field, region.message]).toEqual(['region', 'ionos managed postgresql: region "de/fkb" is not offered; regions: de/fra, de/txl, gb/lhr, es/vit, us/ewr, us/las']);
    const version = await refusal(databases.create('cairn-bad-2', { ...pg, version: '17' }));
    expect([version.field, version.message]).toEqual(['version', 'ionos managed postgresql: version "17" is not offered; versions: 13, 14, 15, 16']);
    const storage = await refusal(databases.create('cairn-bad-3', { ...pg, storageGb: 1 }));
    expect(storage.field).toBe('storageGb');
    const password = await refusal(databases.create('cairn-bad-4', { ...pg, password: 'short' }));
    expect([password.field, password.message]).toEqual(['password', 'ionos managed postgresql: the password must have at least 10 characters']);
    const engine = await refusal(databases.create('cairn-bad-5', { ...pg, type: 'mongodb', version: '7.0' }));
    expect(engine.field).toBe('type');
    expect(d.calls.filter((c) => c.operationId === 'clustersPost' || c.operationId === 'datacentersPost'), 'nothing made for what IONOS would not take').toEqual([]);
  });

  it('resizes, grows storage and upgrades the version in place, following the cluster until AVAILABLE; refuses a shrink or a downgrade', async () => {
    const d = await double({ actionMs: 100 });
    const databases = await service(d);
    const created = await databases.create('cairn-resize-0', pg);
    const resized = await databases.update(created.id, { ...pg, storageGb: 40, managed: { region: 'de/fra', size: 'db-4c-16gb' } });
    expect(resized).toMatchObject({ id: created.id, size: 'db-4c-16gb', storageGb: 40, status: 'available' });
    expect(d.postgresClusters()).toEqual([expect.objectContaining({ cores: 4, ram: 16384, storageSize: 40 * 1024, state: 'AVAILABLE' })]);
    expect(d.calls.filter((c) => c.operationId === 'clustersPatch')).toHaveLength(1);
    const unchanged = await databases.update(created.id, { ...pg, storageGb: 40, managed: { region: 'de/fra', size: 'db-4c-16gb' } });
    expect(unchanged.size).toBe('db-4c-16gb');
    expect(d.calls.filter((c) => c.operationId === 'clustersPatch'), 'nothing to change: no patch').toHaveLength(1);
    await expect(databases.update(created.id, { ...pg, storageGb: 20, managed: { region: 'de/fra', size: 'db-4c-16gb' } })).rejects.toThrow(/has 40 GB; IONOS grows a cluster's storage but cannot shrink it/);
    await expect(databases.update(created.id, { ...pg, version: '15', storageGb: 40, managed: { region: 'de/fra', size: 'db-4c-16gb' } })).rejects.toThrow(
      new UnsupportedError(`ionos: PostgreSQL cluster ${created.id} runs 16 and IONOS cannot move it to 15 (it offers no other version): set spec.version back to "16", or to one of those`),
    );
    expect(d.calls.filter((c) => c.operationId === 'clustersPatch'), 'refusals send nothing').toHaveLength(1);
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.postgresClusters()).toEqual([]);

    const old = await databases.create('cairn-upgrade-0', { ...pg, version: '14' });
    expect((await databases.update(old.id, { ...pg, version: '15' })).version).toBe('15');
    expect(d.postgresClusters()).toEqual([expect.objectContaining({ postgresVersion: '15', state: 'AVAILABLE' })]);
  });

  it("gives cairn's own password to the cluster, and refuses to change it or take backups, saying why", async () => {
    const d = await double({ actionMs: 50 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    const cluster = d.postgresClusters()[0];
    expect(cluster?.password).toBe(pg.password);
    expect(await databases.endpoint(created.id)).toEqual({ host: cluster?.dnsName, port: 5432, username: 'cairn', database: 'postgres' });
    await expect(databases.setPassword(created.id, 'cairns-new-one-0123')).rejects.toThrow(/sets the user's password only when the cluster is created/);
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/IONOS backs up every PostgreSQL cluster continuously .* no endpoint to take one on demand.*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    await databases.deleteBackup('anything');
  });

  it('says plainly when the credentials are wrong', async () => {
    const d = await double();
    const create = ionosVendor.createManagedDatabases?.bind(ionosVendor);
    const driver = await create?.(config(d.url, { credentials: { token: 'wrong-token' } }));
    await expect(driver?.databases.observe({ key: 'cairn-x' })).rejects.toThrow(/Unauthorized: the credentials are not valid/);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'ionos', title: 'IONOS', engines: ['postgresql'], example: 'ionos',
  rotation: /sets the user's password only when the cluster is created/, finalBackupRefusal: 'no endpoint to take one on demand',
  async start() {
    const d = await startIonosDouble({ token: 'ionos-serve-token', actionMs: 100 });
    return {
      endpoint: d.url, env: { IONOS_TOKEN: 'ionos-serve-token' }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.postgresClusters().map((x) => ({ host: x.dnsName, port: 5432, username: 'cairn', database: 'postgres', password: x.password })),
      checkCreated: () => expect(d.postgresClusters()[0]).toMatchObject({
        displayName: expect.stringMatching(/^orders-db \[cairn-key=.+\]$/) as unknown, postgresVersion: '16', location: 'de/fra', cores: 2, ram: 4096, storageSize: 20 * 1024,
      }),
    };
  },
});
