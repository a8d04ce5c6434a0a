/**
 * @module DigitalOcean's managed databases against the DigitalOcean double (every request and
 * answer checked against DigitalOcean's document): PostgreSQL and MongoDB clusters created with
 * their key tag, a create whose answer was lost found by that tag (never a second cluster),
 * engine, region, size and version refused before anything is sent, an in-place resize, a
 * version change and password and backup requests refused saying why, and the password
 * DigitalOcean chose reaching cairn. End to end with a real `cairn serve`:
 * examples/vendors/digitalocean/database.yaml becomes Ready, its credentials are the double's
 * host and password, a rotation fails saying DigitalOcean chooses passwords, a delete stalls on
 * the final backup naming the annotation, and with
 * `skip_final_backup` leaves nothing at the vendor.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired } from '../../src/drivers/contract.js';
import { digitalOceanVendor } from '../../src/drivers/digitalocean/index.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { startDigitalOceanDouble, type DigitalOceanDouble, type DigitalOceanDoubleOptions } from '../doubles/digitalocean.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';

const { config, double } = vendorTestSetup('digitalocean', 'DigitalOcean', (options: DigitalOceanDoubleOptions) => startDigitalOceanDouble(options));

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'fra1', size: 'db-s-1vcpu-1gb' }, password: 'cairns-own-password',
};
const mongo: DatabaseDesired = { ...pg, name: 'events-db', type: 'mongodb', version: '7.0', managed: { region: 'ams3', size: 'db-s-1vcpu-2gb' } };

async function service(d: DigitalOceanDouble, requestTimeoutMs = 5_000): Promise<NonNullable<Awaited<ReturnType<NonNullable<typeof digitalOceanVendor.createManagedDatabases>>>>['databases']> {
  const create = digitalOceanVendor.createManagedDatabases?.bind(digitalOceanVendor);
  if (!create) throw new Error('digitalocean has no managed databases');
  return (await create(config(d.url, { requestTimeoutMs }))).databases;
}

describe('digitalocean managed databases', () => {
  it('offers PostgreSQL and MongoDB', () => {
    expect(digitalOceanVendor.managedDatabaseEngines).toEqual(['postgresql', 'mongodb']);
  });

  it('creates PostgreSQL and MongoDB clusters of one node, tagged with their key, creating and then available', async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 30 });
    expect(created).toMatchObject({ name: 'orders-db', type: 'postgresql', version: '16', size: 'db-s-1vcpu-1gb', status: 'creating', storageGb: 30, serverId: '', clientToken: 'cairn-pg-0' });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const other = await databases.create('cairn-mongo-0', mongo);
    expect(other).toMatchObject({ type: 'mongodb', version: '7.0', storageGb: null, status: 'creating' });
    expect(d.clusters().map((c) => [c.name, c.engine, c.version, c.region, c.size, c.tags, c.storageMib])).toEqual([
      ['orders-db', 'pg', '16', 'fra1', 'db-s-1vcpu-1gb', ['cairn-key:cairn-pg-0', 'managed-by:cairn'], 30 * 1024],
      ['events-db', 'mongodb', '7.0', 'ams3', 'db-s-1vcpu-2gb', ['cairn-key:cairn-mongo-0', 'managed-by:cairn'], null],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }, { key: 'cairn-mongo-0' }]);
    const online = await databases.observe({ key: 'cairn-pg-0', externalId: created.id });
    const cluster = d.clusters()[0];
    expect(online).toMatchObject({ status: 'available', host: cluster?.host, port: 25060, engineVersion: '16.4' });
    expect(await databases.observe({ key: 'cairn-mongo-0' })).toMatchObject({ id: other.id, status: 'available', port: 27017 });
    expect(await databases.observe({ key: 'cairn-none', externalId: '00000000-0000-4000-8000-000000000000' })).toBeNull();
  });

  it('finds a cluster whose create answer was lost by its tag, and never makes a second one', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const patient = await service(d);
    const found = await patient.create('cairn-lost-0', pg);
    expect(d.clusters()).toEqual([expect.objectContaining({ id: found.id, name: 'orders-db', tags: ['cairn-key:cairn-lost-0', 'managed-by:cairn'] })]);
    expect(d.calls.filter((c) => c.operationId === 'databases_list_clusters').map((c) => c.path)).toContain('/v2/databases?tag_name=cairn-key%3Acairn-lost-0');
    expect(d.calls.filter((c) => c.operationId === 'databases_create_cluster')).toHaveLength(1);
  });

  it('refuses an engine version, region or size DigitalOcean does not offer before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'fra1', size: 's-1vcpu-1gb' } }));
    expect(size).toBeInstanceOf(VendorRejectedError);
    expect(size.field).toBe('size');
    expect(size.message).toBe('digitalocean managed postgresql: size "s-1vcpu-1gb" is not offered for a one-node cluster; sizes: db-s-1vcpu-1gb, db-s-1vcpu-2gb, db-s-2vcpu-4gb, db-s-4vcpu-8gb, gd-2vcpu-8gb');
    const region = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'nyc2', size: 'db-s-1vcpu-1gb' } }));
    expect([region.field, region.message]).toEqual(['region', expect.stringMatching(/region "nyc2" is not offered; regions: ams3, blr1, fra1,/)]);
    const version = await refusal(databases.create('cairn-bad-2', { ...mongo, version: '7' }));
    expect([version.field, version.message]).toEqual(['version', 'digitalocean managed mongodb: version "7" is not offered; versions: 6.0, 7.0']);
    expect(d.calls.filter((c) => c.operationId === 'databases_create_cluster'), 'nothing sent for what DigitalOcean does not offer').toEqual([]);
    expect(d.calls.filter((c) => c.operationId === 'databases_list_options').length).toBeGreaterThan(0);
  });

  it('resizes in place and follows the resize until online; refuses a version change saying why', async () => {
    const d = await double({ actionMs: 100 });
    const databases = await service(d);
    const created = await databases.create('cairn-resize-0', pg);
    const resized = await databases.update(created.id, { ...pg, managed: { region: 'fra1', size: 'db-s-2vcpu-4gb' } });
    expect(resized).toMatchObject({ id: created.id, size: 'db-s-2vcpu-4gb', status: 'available' });
    expect(d.clusters()).toEqual([expect.objectContaining({ size: 'db-s-2vcpu-4gb', status: 'online' })]);
    expect(d.calls.filter((c) => c.operationId === 'databases_update_clusterSize')).toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'databases_create_cluster')).toHaveLength(1);
    const unchanged = await databases.update(created.id, { ...pg, managed: { region: 'fra1', size: 'db-s-2vcpu-4gb' } });
    expect(unchanged.size).toBe('db-s-2vcpu-4gb');
    expect(d.calls.filter((c) => c.operationId === 'databases_update_clusterSize'), 'nothing to change: no resize').toHaveLength(1);
    d.retireDatabaseVersion('pg', '16');
    const onRetired = await (await service(d)).update(created.id, { ...pg, managed: { region: 'fra1', size: 'db-s-4vcpu-8gb' } });
    expect(onRetired.size, 'a cluster on a version no longer offered for new ones is still resized').toBe('db-s-4vcpu-8gb');
    await expect(databases.update(created.id, { ...pg, managed: { region: 'fra1', size: 'db-s-99' } })).rejects.toThrow(/size "db-s-99" is not offered for a one-node cluster/);
    expect(d.calls.filter((c) => c.operationId === 'databases_update_clusterSize'), 'an unknown size is refused before anything is sent').toHaveLength(2);
    await expect(databases.update(created.id, { ...pg, version: '17' })).rejects.toThrow(
      new UnsupportedError(
        `digitalocean: database cluster ${created.id} runs postgresql 16; DigitalOcean changes a managed database's version only through its own upgrade endpoint (major upgrades of PostgreSQL), which cairn does not drive: set spec.version back to "16", or replace the database (a new one on 17) and move the data`,
      ),
    );
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.clusters()).toEqual([]);
  });

  it('gives the password DigitalOcean chose as the vendor password, and refuses to set one or take backups, saying why', async () => {
    const d = await double({ actionMs: 50 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    const endpoint = await databases.endpoint(created.id);
    const cluster = d.clusters()[0];
    expect(endpoint).toEqual({ host: cluster?.host, port: 25060, username: 'doadmin', database: 'defaultdb', vendorPassword: cluster?.password });
    expect(endpoint.vendorPassword).not.toBe(pg.password);
    await expect(databases.setPassword(created.id, 'cairns-new-one')).rejects.toThrow(/DigitalOcean chooses its managed databases' passwords itself/);
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/DigitalOcean takes daily backups .* no endpoint to take one on demand.*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    await databases.deleteBackup('anything');
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'digitalocean', title: 'DigitalOcean', engines: ['postgresql', 'mongodb'], example: 'digitalocean',
  rotation: /DigitalOcean chooses its managed databases' passwords itself/, finalBackupRefusal: 'no endpoint to take one on demand',
  async start() {
    const d = await startDigitalOceanDouble({ token: 'digitalocean-serve-token', actionMs: 100 });
    return {
      endpoint: d.url, env: { DIGITALOCEAN_TOKEN: 'digitalocean-serve-token' }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.clusters().map((c) => ({ host: c.host, port: 25060, username: 'doadmin', database: 'defaultdb', password: c.password })),
      checkCreated: () => expect(d.clusters()[0]).toMatchObject({ name: 'orders-db', engine: 'pg', version: '16', region: 'fra1', size: 'db-s-1vcpu-1gb' }),
    };
  },
});
