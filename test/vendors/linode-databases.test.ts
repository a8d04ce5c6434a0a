/**
 * @module Linode's managed PostgreSQL against the Linode double (every request and answer
 * checked against Linode's document): one-node databases created with their key in the label
 * and an open allow list, a create whose answer was lost found by that label (never a second
 * database), region, size, version and storageGb refused before anything is sent, an in-place
 * resize followed until active, a version change, password and backup requests refused saying
 * why, and the password Linode chose reaching cairn. End to end with a real `cairn serve`:
 * examples/vendors/linode/database.yaml becomes available, its credentials are the double's
 * host and password, a rotation fails saying Linode chooses passwords, a delete stalls on the
 * final backup naming the annotation, and with `skip_final_backup` leaves nothing at Linode.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { databaseLabel, keyFromLabel, labelCarriesKey } from '../../src/drivers/linode/database-label.js';
import { linodeVendor } from '../../src/drivers/linode/index.js';
import { isLinodeLabel } from '../../src/drivers/linode/label.js';
import { startLinodeDouble, type LinodeDouble, type LinodeDoubleOptions } from '../doubles/linode.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';

const { config, double } = vendorTestSetup('linode', 'Linode', (options: LinodeDoubleOptions) => startLinodeDouble(options));

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'us-east', size: 'g6-nanode-1' }, password: 'cairns-own-password',
};

async function service(d: LinodeDouble, requestTimeoutMs = 5_000): Promise<NonNullable<Awaited<ReturnType<NonNullable<typeof linodeVendor.createManagedDatabases>>>>['databases']> {
  const create = linodeVendor.createManagedDatabases?.bind(linodeVendor);
  if (!create) throw new Error('linode has no managed databases');
  return (await create(config(d.url, { requestTimeoutMs }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('linode managed databases', () => {
  it('offers PostgreSQL only', () => {
    expect(linodeVendor.managedDatabaseEngines).toEqual(['postgresql']);
  });

  it('puts the key in a label Linode takes: within 32 characters, the same for the same name and key, found again by the key', () => {
    const label = databaseLabel('a-very-long-database-name-for-the-orders-of-the-shop', 'cairn-0a1b2c3d-4e5f-6789-abcd-ef0123456789-12');
    expect(label.length).toBeLessThanOrEqual(32);
    expect(isLinodeLabel(label)).toBe(true);
    expect(label).toBe(databaseLabel('a-very-long-database-name-for-the-orders-of-the-shop', 'cairn-0a1b2c3d-4e5f-6789-abcd-ef0123456789-12'));
    expect(labelCarriesKey(label, 'cairn-0a1b2c3d-4e5f-6789-abcd-ef0123456789-12')).toBe(true);
    expect(labelCarriesKey(label, 'cairn-other-0')).toBe(false);
    expect(keyFromLabel(label, 'cairn-0a1b2c3d-4e5f-6789-abcd-ef0123456789-12')).toBe('cairn-0a1b2c3d-4e5f-6789-abcd-ef0123456789-12');
    expect(keyFromLabel(label)).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(keyFromLabel('made-by-hand')).toBe('');
    expect(isLinodeLabel(databaseLabel('9_lives', 'k'))).toBe(true);
  });

  it('creates a one-node PostgreSQL with its key in the label and an open allow list, provisioning and then available', async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', pg);
    expect(created).toMatchObject({ name: databaseLabel('orders-db', 'cairn-pg-0'), type: 'postgresql', version: '16', size: 'g6-nanode-1', status: 'creating', storageGb: null, serverId: '', clientToken: 'cairn-pg-0', host: null });
    expect(d.databases().map((db) => [db.label, db.engine, db.region, db.type, db.clusterSize, db.allowList])).toEqual([
      [databaseLabel('orders-db', 'cairn-pg-0'), 'postgresql/16', 'us-east', 'g6-nanode-1', 1, ['0.0.0.0/0']],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const db = d.databases()[0];
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: created.id })).toMatchObject({ status: 'available', host: db?.host, port: 5432, engineVersion: '16.4', version: '16' });
    expect(await databases.observe({ key: 'cairn-pg-0' })).toMatchObject({ id: created.id, clientToken: 'cairn-pg-0' });
    expect(await databases.observe({ key: 'cairn-none', externalId: '123456' })).toBeNull();
    expect(d.violations).toEqual([]);
  });

  it('finds a database whose create answer was lost by the key in its label, and never makes a second one', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = await (await service(d)).create('cairn-lost-0', pg);
    expect(d.databases()).toEqual([expect.objectContaining({ id: Number(found.id), label: databaseLabel('orders-db', 'cairn-lost-0') })]);
    expect(found.clientToken).toBe('cairn-lost-0');
    expect(d.calls.filter((c) => c.operationId === 'post-databases-postgre-sql-instances')).toHaveLength(1);
    expect(d.violations).toEqual([]);
  });

  it('refuses a region, size, version or storageGb Linode does not take before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'us-east', size: 'g6-dedicated-2' } }));
    expect(size).toBeInstanceOf(VendorRejectedError);
    expect([size.field, size.message]).toEqual(['size', 'linode managed postgresql: size "g6-dedicated-2" is not a one-node PostgreSQL type; sizes: g6-nanode-1, g6-standard-1, g6-standard-2']);
    const region = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'se-sto', size: 'g6-nanode-1' } }));
    expect([region.field, region.message]).toEqual(['region', 'linode managed postgresql: region "se-sto" does not run managed databases; regions: us-east, us-ord, eu-west, eu-central, ap-south']);
    const version = await refusal(databases.create('cairn-bad-2', { ...pg, version: '16.4' }));
    expect([version.field, version.message]).toEqual(['version', 'linode managed postgresql: version "16.4" is not offered; versions: 14, 15, 16']);
    const storage = await refusal(databases.create('cairn-bad-3', { ...pg, storageGb: 50 }));
    expect([storage.field, storage.message]).toEqual(['storageGb', expect.stringContaining('Linode gives a managed database the disk of its type')]);
    const mongo = await refusal(databases.create('cairn-bad-4', { ...pg, type: 'mongodb', version: '7.0' }));
    expect(mongo.field).toBe('type');
    expect(d.calls.filter((c) => c.operationId === 'post-databases-postgre-sql-instances'), 'nothing sent for what Linode does not take').toEqual([]);
    expect(d.violations).toEqual([]);
  });

  it('resizes in place to a larger type and follows it until active; refuses a smaller type with Linode\'s reason and a version change saying why', async () => {
    const d = await double({ actionMs: 100 });
    const databases = await service(d);
    const created = await databases.create('cairn-resize-0', pg);
    const bigger = { ...pg, managed: { region: 'us-east', size: 'g6-standard-2' } };
    const resized = await databases.update(created.id, bigger);
    expect(resized).toMatchObject({ id: created.id, size: 'g6-standard-2', status: 'available' });
    expect(d.databases()).toEqual([expect.objectContaining({ type: 'g6-standard-2', status: 'active' })]);
    expect(d.calls.filter((c) => c.operationId === 'put-databases-postgre-sql-instance')).toHaveLength(1);
    expect((await databases.update(created.id, bigger)).size).toBe('g6-standard-2');
    expect(d.calls.filter((c) => c.operationId === 'put-databases-postgre-sql-instance'), 'nothing to change: no resize').toHaveLength(1);
    await expect(databases.update(created.id, { ...pg, managed: { region: 'us-east', size: 'g6-standard-1' } })).rejects.toThrow(/more disk space than your current one/);
    await expect(databases.update(created.id, { ...pg, managed: { region: 'us-east', size: 'g6-huge' } })).rejects.toThrow(/size "g6-huge" is not a one-node PostgreSQL type/);
    expect(d.calls.filter((c) => c.operationId === 'put-databases-postgre-sql-instance'), 'an unknown size is refused before anything is sent').toHaveLength(2);
    await expect(databases.update(created.id, { ...bigger, version: '17' })).rejects.toThrow(
      new UnsupportedError(`linode: managed database ${created.id} runs PostgreSQL 16; cairn does not drive Linode's version upgrades: set spec.version back to "16", or replace the database (a new one on 17) and move the data`),
    );
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.databases()).toEqual([]);
    expect(d.violations).toEqual([]);
  });

  it('gives the password Linode chose as the vendor password, and refuses to set one or take backups, saying why', async () => {
    const d = await double({ actionMs: 50 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    await expect(databases.endpoint(created.id)).rejects.toThrow(/has no host yet/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const endpoint = await databases.endpoint(created.id);
    const db = d.databases()[0];
    expect(endpoint).toEqual({ host: db?.host, port: 5432, username: 'linroot', database: 'defaultdb', vendorPassword: db?.password });
    expect(endpoint.vendorPassword).not.toBe(pg.password);
    await expect(databases.setPassword(created.id, 'cairns-new-one')).rejects.toThrow(/Linode chooses its managed databases' root password itself/);
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/snapshot backups under the database itself.*cannot be reached once it is deleted.*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    await databases.deleteBackup('anything');
    expect(d.violations).toEqual([]);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'linode', title: 'Linode', engines: ['postgresql'], example: 'linode',
  rotation: /Linode chooses its managed databases' root password itself/, finalBackupRefusal: "cairn's backups must outlive their database",
  async start() {
    const d = await startLinodeDouble({ token: 'linode-serve-token', actionMs: 100 });
    return {
      endpoint: d.url, env: { LINODE_TOKEN: 'linode-serve-token' }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.databases().map((x) => ({ host: x.host, port: 5432, username: 'linroot', database: 'defaultdb', password: x.password })),
      checkCreated() {
        const db = d.databases()[0];
        expect(db).toMatchObject({ engine: 'postgresql/16', region: 'us-east', type: 'g6-nanode-1', clusterSize: 1 });
        expect(db?.label).toMatch(/^orders-db-[0-9a-f]{12}$/);
      },
    };
  },
});
