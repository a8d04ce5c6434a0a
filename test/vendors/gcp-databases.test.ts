/**
 * @module Cloud SQL for PostgreSQL through the gcp vendor (`@googleapis/sqladmin`, unmodified)
 * against the gcp double, every request and answer checked against sqladmin.v1.json: an
 * instance named after its key and labelled with it, with cairn's password as the postgres
 * user's, creating and then available; a create whose answer was lost found by its name (never
 * a second instance); region, tier and version refused before the insert is sent; the password
 * set at Google; on-demand backups keyed by their description, found again across pages and
 * deleted; a restore in place that puts the backup's content back, once per key; the final
 * backup refused saying why (Cloud SQL deletes backups with their instance); the validator able
 * to refuse a Cloud SQL request. End to end with a real `cairn serve`:
 * examples/vendors/gcp/database.yaml becomes Ready with the double's host and cairn's password,
 * a rotation reaches Google, and a delete needs skip_final_backup.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired, DatabaseRuntime } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { instanceNameForKey, NO_FINAL_BACKUP } from '../../src/drivers/gcp/cloud-sql.js';
import { gcpVendor } from '../../src/drivers/gcp/index.js';
import { startGcpDouble, testServiceAccountKey, type GcpDouble, type GcpDoubleOptions } from '../doubles/gcp/server.js';
import { DiscoveryValidator } from '../support/discovery-validator.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { vendorDocument } from '../support/vendor-double.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';

const setup = vendorTestSetup('gcp', 'Google Cloud', (options: GcpDoubleOptions) => startGcpDouble(options));
const { double } = setup;

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'europe-west1', size: 'db-custom-1-3840' }, password: 'Cairns-Own-Passw0rd',
};

async function service(d: GcpDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = gcpVendor.createManagedDatabases?.bind(gcpVendor);
  if (!create) throw new Error('gcp has no managed databases');
  return (await create(setup.config(d.url, { requestTimeoutMs, credentials: { serviceAccountKey: testServiceAccountKey(d.url) } }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('gcp managed databases (Cloud SQL)', () => {
  it('offers PostgreSQL', () => {
    expect(gcpVendor.managedDatabaseEngines).toEqual(['postgresql']);
  });

  it("creates an instance named after its key with cairn's password, creating and then available, found by id and by key", async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 20 });
    const name = instanceNameForKey('cairn-pg-0');
    expect(created).toMatchObject({ id: name, type: 'postgresql', version: '16', size: 'db-custom-1-3840', status: 'creating', storageGb: 20, serverId: '', clientToken: 'cairn-pg-0', host: null });
    expect(d.databases().map((i) => [i.name, i.region, i.tier, i.diskGb, i.databaseVersion, i.password, i.labels])).toEqual([
      [name, 'europe-west1', 'db-custom-1-3840', 20, 'POSTGRES_16', 'Cairns-Own-Passw0rd', { 'cairn-key': 'cairn-pg-0', 'managed-by': 'cairn', 'cairn-name': 'orders-db' }],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const online = await databases.observe({ key: 'cairn-pg-0', externalId: created.id });
    expect(online).toMatchObject({ status: 'available', host: d.databases()[0]?.ip, port: 5432, engineVersion: 'POSTGRES_16_4' });
    expect(await databases.observe({ key: 'cairn-pg-0' })).toMatchObject({ id: name, status: 'available' });
    expect(await databases.observe({ key: 'cairn-none' })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host: d.databases()[0]?.ip, port: 5432, username: 'postgres', database: 'postgres' });
    expect(d.violations).toEqual([]);
  });

  it('finds an instance whose insert answer was lost by its name, and never makes a second one', async () => {
    const d = await double({ slowAnswers: { operationIds: ['sql.instances.insert'], ms: 400 } });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const patient = await service(d);
    const found = await patient.create('cairn-lost-0', pg);
    expect(found).toMatchObject({ id: instanceNameForKey('cairn-lost-0'), clientToken: 'cairn-lost-0' });
    expect(d.databases()).toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'sql.instances.insert'), 'the lost insert, sent once').toHaveLength(1);
    expect(d.violations).toEqual([]);
  });

  it('refuses a region, tier or version Cloud SQL does not offer before sending the insert, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'europe-west1', size: 'db-n1-standard-64' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', 'gcp managed postgresql: tier "db-n1-standard-64" is not a Cloud SQL tier; tiers: db-f1-micro, db-custom-1-3840, db-custom-2-7680']);
    const region = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'asia-east9', size: 'db-custom-1-3840' } }));
    expect([region.field, region.message]).toEqual(['region', 'gcp managed postgresql: tier db-custom-1-3840 is not offered in region "asia-east9"; its regions: europe-west1, europe-west4, us-central1']);
    const version = await refusal(databases.create('cairn-bad-2', { ...pg, version: '8' }));
    expect([version.field, version.message]).toEqual(['version', expect.stringContaining('version "8" is not one Cloud SQL runs')]);
    const mongo = await refusal(databases.create('cairn-bad-3', { ...pg, type: 'mongodb' }));
    expect(mongo.field).toBe('type');
    expect(d.calls.filter((c) => c.operationId === 'sql.instances.insert'), 'nothing sent for what Cloud SQL does not offer').toEqual([]);
  });

  it('sets the password at Google, takes backups keyed by cairn across pages, restores one in place once per key, and deletes', async () => {
    const d = await double({ actionMs: 50, maxPerPage: 2 });
    const databases = await service(d);
    const created = await databases.create('cairn-bk-0', pg);
    await untilCreated(databases, [{ key: 'cairn-bk-0', externalId: created.id }]);
    await databases.setPassword(created.id, 'Cairns-New-Passw0rd');
    expect(d.databases()[0]?.password).toBe('Cairns-New-Passw0rd');
    const instance = d.sql.instances.get(created.id);
    if (!instance) throw new Error('no instance');
    instance.content = 'orders v1';
    const first = await databases.createBackup(created.id, 'cairn-backup-0');
    instance.content = 'orders v2';
    for (const n of [1, 2, 3]) await databases.createBackup(created.id, `cairn-backup-${n}`);
    expect(await databases.createBackup(created.id, 'cairn-backup-0'), 'the same key again: the first backup, found past the first page').toMatchObject({ id: first.id, clientToken: 'cairn-backup-0' });
    expect(d.backupRuns()).toHaveLength(4);
    expect(first.id).toMatch(new RegExp(`^${created.id}/\\d+$`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await databases.observeBackup({ key: 'cairn-backup-0', externalId: first.id })).toMatchObject({ status: 'completed', databaseId: created.id });
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toMatchObject({ id: first.id });

    const restored = await databases.restore(created.id, first.id, 'cairn-restore-0');
    expect(restored).toMatchObject({ id: created.id, status: 'available' });
    expect(instance.content, 'the backup put back into the same instance').toBe('orders v1');
    instance.content = 'orders v3';
    await databases.restore(created.id, first.id, 'cairn-restore-0');
    expect(instance.content, 'the same key does not restore twice').toBe('orders v3');
    expect(d.calls.filter((c) => c.operationId === 'sql.instances.restoreBackup')).toHaveLength(1);

    await databases.deleteBackup(first.id);
    await databases.deleteBackup(first.id);
    expect(await databases.observeBackup({ key: 'cairn-backup-0', externalId: first.id })).toBeNull();
    expect(d.backupRuns()).toHaveLength(3);
    await expect(databases.update(created.id, { ...pg, managed: { region: 'europe-west1', size: 'db-custom-2-7680' } })).rejects.toBeInstanceOf(UnsupportedError);
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.databases()).toEqual([]);
    expect(d.backupRuns(), 'Cloud SQL deletes backups with their instance').toEqual([]);
    expect(d.violations).toEqual([]);
  });

  it('refuses a final backup before a delete, saying why: Cloud SQL deletes backups with the instance', async () => {
    const d = await double();
    const databases = await service(d);
    expect(databases.finalBackupUnavailable).toBe(NO_FINAL_BACKUP);
    expect(NO_FINAL_BACKUP).toMatch(/deletes an instance's backups .* together with the instance/);
  });

  it("the validator refuses a Cloud SQL request or answer outside sqladmin's discovery document", () => {
    const validator = new DiscoveryValidator(vendorDocument('google', 'sqladmin.v1.json'));
    expect(validator.validateRequest('sql.instances.insert', { project: 'p' }, new URLSearchParams(), { name: 'x', settings: { tier: 7 } })).toEqual([expect.stringContaining('tier')]);
    expect(validator.validateResponse('sql.backupRuns.list', { items: [{ status: 'DONE-ISH' }] })).toEqual([expect.stringContaining('status')]);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'gcp', title: 'Google Cloud', engines: ['postgresql'], example: 'gcp', rotation: 'applied', finalBackupRefusal: 'Cloud SQL deletes an instance\'s backups',
  async start() {
    const d = await startGcpDouble({ actionMs: 100 });
    return {
      endpoint: d.url, env: { GCP_SERVICE_ACCOUNT_KEY: testServiceAccountKey(d.url) }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.databases().map((i) => ({ host: i.ip, port: 5432, username: 'postgres', database: 'postgres', password: i.password })),
      checkCreated: () => expect(d.databases()[0]).toMatchObject({ region: 'europe-west1', tier: 'db-custom-1-3840', databaseVersion: 'POSTGRES_16' }),
    };
  },
});
