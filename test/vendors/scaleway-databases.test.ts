/**
 * @module Scaleway's managed PostgreSQL against the RDB double (every request and answer checked
 * against Scaleway's RDB document): instances created with their key tag and cairn's password,
 * a create whose answer was lost found by that tag (never a second instance), region, node type,
 * version and password refused before anything is sent, an in-place upgrade of node type and
 * volume followed until ready, a password change through UpdateUser, and backups refused saying
 * why. End to end with a real `cairn serve`: examples/vendors/scaleway-database becomes
 * available, its credentials are the double's address with cairn's password (the one Scaleway
 * holds), a rotation sets the new one at Scaleway, a delete stalls on the final backup naming the
 * annotation, and with `skip_final_backup` leaves nothing at the vendor.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired, DriverConfig } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { scalewayVendor } from '../../src/drivers/scaleway/index.js';
import { generatePassword } from '../../src/reconcile/database-password.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../doubles/scaleway.js';
import { startScalewayFront, startScalewayRdbDouble, type ScalewayRdbDouble, type ScalewayRdbDoubleOptions } from '../doubles/scaleway-rdb.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';

const setup = vendorTestSetup('scaleway', 'Scaleway RDB', (options: ScalewayRdbDoubleOptions) => startScalewayRdbDouble(options));
const { double } = setup;

function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(url, { credentials: { secret_key: setup.token, project_id: SCALEWAY_TEST_PROJECT }, ...overrides });
}

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'fr-par', size: 'DB-DEV-S' }, password: 'Cairns-own-passw0rd',
};

async function service(d: ScalewayRdbDouble, overrides: Partial<DriverConfig> = {}): Promise<NonNullable<Awaited<ReturnType<NonNullable<typeof scalewayVendor.createManagedDatabases>>>>['databases']> {
  const create = scalewayVendor.createManagedDatabases?.bind(scalewayVendor);
  if (!create) throw new Error('scaleway has no managed databases');
  return (await create(config(d.url, overrides))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('scaleway managed databases', () => {
  it('offers PostgreSQL only', () => {
    expect(scalewayVendor.managedDatabaseEngines).toEqual(['postgresql']);
  });

  it('creates a non-HA instance tagged with its key and holding cairn’s password, provisioning and then available at its endpoint', async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 20 });
    expect(created).toMatchObject({ name: 'orders-db', type: 'postgresql', version: '16', size: 'DB-DEV-S', status: 'creating', storageGb: 20, serverId: '', clientToken: 'cairn-pg-0', host: null });
    expect(created.id).toMatch(/^fr-par\/[0-9a-f-]{36}$/);
    expect(d.instances().map((i) => [i.region, i.name, i.engine, i.nodeType, i.tags, i.volumeBytes, i.userName, i.password])).toEqual([
      ['fr-par', 'orders-db', 'PostgreSQL-16', 'DB-DEV-S', ['cairn-key=cairn-pg-0', 'managed-by=cairn'], 20 * 1_000_000_000, 'cairn', 'Cairns-own-passw0rd'],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const ip = d.instances()[0]?.ip;
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: created.id })).toMatchObject({ status: 'available', host: ip, port: 5432 });
    expect(await databases.observe({ key: 'cairn-pg-0' }), 'found by its key alone').toMatchObject({ id: created.id });
    expect(await databases.endpoint(created.id)).toEqual({ host: ip, port: 5432, username: 'cairn', database: 'rdb' });
    expect(await databases.observe({ key: 'cairn-none', externalId: 'fr-par/00000000-0000-4000-8000-000000000000' })).toBeNull();
  });

  it('finds an instance whose create answer was lost by its tag, and never makes a second one', async () => {
    const d = await double({ latencyMs: 400 });
    await expect((await service(d, { requestTimeoutMs: 150 })).create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = await (await service(d)).create('cairn-lost-0', pg);
    expect(d.instances()).toEqual([expect.objectContaining({ id: found.id.split('/')[1], tags: ['cairn-key=cairn-lost-0', 'managed-by=cairn'] })]);
    expect(d.calls.filter((c) => c.operationId === 'ListInstances').map((c) => c.path)).toContain(`/rdb/v1/regions/fr-par/instances?tags=cairn-key%3Dcairn-lost-0&project_id=${SCALEWAY_TEST_PROJECT}`);
    expect(d.calls.filter((c) => c.operationId === 'CreateInstance')).toHaveLength(1);
  });

  it('refuses a region, node type, version or password Scaleway would not take before sending anything, naming the valid ones', async () => {
    const d = await double({ maxPerPage: 2 });
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'pl-waw', size: 'DB-GP-XS' } }));
    expect([size.field, size.message]).toEqual(['size', 'scaleway managed postgresql in pl-waw: size "DB-GP-XS" is not offered; sizes: DB-DEV-S, DB-DEV-M']);
    const region = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'fr-par-1', size: 'DB-DEV-S' } }));
    expect([region.field, region.message]).toEqual(['region', 'scaleway managed postgresql: region "fr-par-1" is not a Scaleway database region; regions: fr-par, nl-ams, pl-waw']);
    const version = await refusal(databases.create('cairn-bad-2', { ...pg, version: '13' }));
    expect([version.field, version.message]).toEqual(['version', 'scaleway managed postgresql in fr-par: version "13" is not offered; versions: 14, 15, 16']);
    const password = await refusal(databases.create('cairn-bad-3', { ...pg, password: 'alllowercase123' }));
    expect([password.field, password.message]).toEqual(['password', expect.stringMatching(/at least one digit, one upper-case letter, one lower-case letter and one special character/)]);
    const mongo = await refusal(databases.create('cairn-bad-4', { ...pg, type: 'mongodb' }));
    expect(mongo.field).toBe('type');
    expect(d.calls.filter((c) => c.operationId === 'CreateInstance'), 'nothing sent for what Scaleway does not offer').toEqual([]);
    expect(d.calls.filter((c) => c.operationId === 'ListNodeTypes').length, 'node types read page by page (2 a page)').toBeGreaterThan(1);
  });

  it('upgrades node type and volume in place, following each until ready; refuses a version or region change saying why; deletes (gone is done)', async () => {
    const d = await double({ actionMs: 100 });
    const databases = await service(d);
    const created = await databases.create('cairn-resize-0', pg);
    const resized = await databases.update(created.id, { ...pg, storageGb: 50, managed: { region: 'fr-par', size: 'DB-GP-XS' } });
    expect(resized).toMatchObject({ id: created.id, size: 'DB-GP-XS', storageGb: 50, status: 'available' });
    expect(d.calls.filter((c) => c.operationId === 'UpgradeInstance')).toHaveLength(2);
    const unchanged = await databases.update(created.id, { ...pg, storageGb: 50, managed: { region: 'fr-par', size: 'DB-GP-XS' } });
    expect(unchanged.size).toBe('DB-GP-XS');
    expect(d.calls.filter((c) => c.operationId === 'UpgradeInstance'), 'nothing to change: no upgrade').toHaveLength(2);
    await expect(databases.update(created.id, { ...pg, managed: { region: 'fr-par', size: 'DB-99' } })).rejects.toThrow(/size "DB-99" is not offered/);
    await expect(databases.update(created.id, { ...pg, storageGb: 10, managed: { region: 'fr-par', size: 'DB-GP-XS' } })).rejects.toThrow(/grows a volume but never shrinks it/);
    await expect(databases.update(created.id, { ...pg, version: '17', managed: { region: 'fr-par', size: 'DB-GP-XS' } })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(databases.update(created.id, { ...pg, managed: { region: 'nl-ams', size: 'DB-GP-XS' } })).rejects.toThrow(/Scaleway cannot move one to nl-ams/);
    expect(d.calls.filter((c) => c.operationId === 'UpgradeInstance'), 'refusals send nothing').toHaveLength(2);
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.instances()).toEqual([]);
  });

  it('sets a new password through UpdateUser, takes every password cairn generates, and refuses backups saying why', async () => {
    const d = await double({ actionMs: 50 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    await databases.setPassword(created.id, 'Rotated_passw0rd');
    expect(d.instances()[0]?.password).toBe('Rotated_passw0rd');
    await expect(databases.setPassword(created.id, 'short')).rejects.toMatchObject({ field: 'password' });
    for (let i = 0; i < 30; i++) {
      const generated = generatePassword();
      await databases.setPassword(created.id, generated);
      expect(d.instances()[0]?.password).toBe(generated);
    }
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/does not take or restore on-demand backups .*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
  });

  it('says plainly when the secret key is wrong', async () => {
    const d = await double();
    const create = scalewayVendor.createManagedDatabases?.bind(scalewayVendor);
    const databases = (await create?.(setup.config(d.url, { credentials: { secret_key: 'wrong', project_id: SCALEWAY_TEST_PROJECT } })))?.databases;
    await expect(databases?.observe({ key: 'cairn-x-0' })).rejects.toBeInstanceOf(VendorAuthError);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'scaleway', title: 'Scaleway', engines: ['postgresql'], example: 'scaleway-database', rotation: 'applied', finalBackupRefusal: 'does not take or restore on-demand backups',
  async start() {
    const key = 'scaleway-serve-key';
    const d = await startScalewayRdbDouble({ token: key, actionMs: 100 });
    const instances = await startScalewayDouble({ token: key });
    const front = await startScalewayFront(instances.url, d.url);
    return {
      endpoint: front.url, env: { SCALEWAY_CREDENTIALS: JSON.stringify({ secret_key: key, project_id: SCALEWAY_TEST_PROJECT }) },
      violations: () => [...d.violations, ...instances.violations, ...instances.servers().map((s) => `no server is involved, but ${s.name} was made`)],
      stop: async () => void (await Promise.all([d.stop(), instances.stop(), front.stop()])),
      held: () => d.instances().map((x) => ({ host: x.ip, port: 5432, username: 'cairn', database: 'rdb', password: x.password })),
      checkCreated: () => expect(d.instances()[0]).toMatchObject({ name: 'orders-db', engine: 'PostgreSQL-16', region: 'fr-par', nodeType: 'DB-DEV-S', volumeBytes: 20 * 1_000_000_000, userName: 'cairn' }),
    };
  },
});
