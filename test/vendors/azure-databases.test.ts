/**
 * @module Azure Database for PostgreSQL flexible server through the azure vendor
 * (`@azure/arm-postgresql-flexible`, unmodified) against the Azure double, every request and
 * answer body checked against the SDK's own serializer models: a server named from the
 * subscription and key, tagged with the key, with cairn's password, provisioning and then ready;
 * a create whose answer was lost found again by its name (ARM's PUT is idempotent), never a
 * second server; engine, size, version and storage refused before anything is sent; the password
 * changed at Azure; delete followed to its end; backups, restores and changes refused saying why;
 * the validator able to refuse a bad server body. End to end with a real `cairn serve`:
 * examples/vendors/azure/database.yaml becomes available with Azure's host and cairn's password,
 * a rotation reaches Azure, and a delete needs skip_final_backup.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { azureVendor } from '../../src/drivers/azure/index.js';
import { readServerState, serverNameForKey } from '../../src/drivers/azure/postgres.js';
import type { DatabaseDesired, DatabaseRuntime, DriverConfig } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { startAzureDouble, trustDoubleCertificate, type AzureDouble, type AzureDoubleOptions } from '../doubles/azure/server.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';

const SECRET = 'azure-test-client-secret';
const SUBSCRIPTION = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const CREDENTIALS = { tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47', client_id: '1b7c5f1e-0c3c-4c58-9d7e-6b9a2f4c0e11', client_secret: SECRET, subscription_id: SUBSCRIPTION };
const GROUP = `/subscriptions/${SUBSCRIPTION}/resourceGroups/cairn/providers/Microsoft.DBforPostgreSQL/flexibleServers`;

const caDir = mkdtempSync(join(tmpdir(), 'cairn-azure-db-ca-'));
const setup = vendorTestSetup('azure', 'the Azure SDK models', (options: AzureDoubleOptions & { token: string }) => startAzureDouble({ ...options, clientSecret: SECRET }));
const double = (options: Partial<AzureDoubleOptions> = {}): Promise<AzureDouble> => setup.double({ clientSecret: SECRET, retryAfterSeconds: 0, ...options });

beforeAll(async () => {
  await trustDoubleCertificate(caDir);
  vi.stubEnv('CAIRN_POLL_MS', '50');
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(caDir, { recursive: true, force: true });
});

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'westeurope', size: 'Standard_B1ms' }, password: 'Cairns-Own-Passw0rd',
};

async function service(d: AzureDouble, overrides: Partial<DriverConfig> = {}): Promise<DatabaseRuntime> {
  const create = azureVendor.createManagedDatabases?.bind(azureVendor);
  if (!create) throw new Error('azure has no managed databases');
  return (await create(setup.config(d.url, { credentials: { ...CREDENTIALS, authority_host: d.url }, ...overrides }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('azure managed databases', () => {
  it('offers PostgreSQL, and reads flexible server states as cairn statuses', () => {
    expect(azureVendor.managedDatabaseEngines).toEqual(['postgresql']);
    expect(['Provisioning', 'Ready', 'Updating', 'Dropping', 'Disabled', 'Stopped'].map(readServerState)).toEqual(['creating', 'available', 'available', 'deleting', 'error', 'creating']);
  });

  it("creates a server named from its key with cairn's password and its key tag, provisioning and then ready, found by id and by key", async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-pg-0', { ...pg, storageGb: 64 });
    const name = serverNameForKey(SUBSCRIPTION, 'cairn-pg-0');
    expect(name).toMatch(/^cairn-pg-[0-9a-f]{24}$/);
    expect(created).toMatchObject({ id: `${GROUP}/${name}`, name: 'orders-db', type: 'postgresql', version: '16', size: 'Standard_B1ms', status: 'creating', storageGb: 64, serverId: '', clientToken: 'cairn-pg-0', host: null });
    expect(d.postgresServers().map((s) => [s.name, s.location, s.sku, s.storageGb, s.version, s.administratorLogin, s.password, s.tags])).toEqual([
      [name, 'westeurope', { name: 'Standard_B1ms', tier: 'Burstable' }, 64, '16', 'cairn', 'Cairns-Own-Passw0rd', { 'cairn-key': 'cairn-pg-0', 'managed-by': 'cairn', 'cairn-name': 'orders-db' }],
    ]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const host = `${name}.postgres.database.azure.com`;
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: created.id })).toMatchObject({ status: 'available', host, port: 5432, engineVersion: '16.6' });
    expect(await databases.observe({ key: 'cairn-pg-0' })).toMatchObject({ id: created.id, status: 'available' });
    expect(await databases.observe({ key: 'cairn-none', externalId: `${GROUP}/cairn-pg-000000000000000000000000` })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host, port: 5432, username: 'cairn', database: 'postgres' });
  });

  it('finds a server whose create answer was lost by its name, and never makes a second one', async () => {
    const d = await double({ slowAnswers: { operationIds: ['Servers_CreateOrUpdate'], ms: 600 } });
    const patient = await service(d);
    expect(await patient.observe({ key: 'cairn-lost-0' }), 'signed in, nothing there yet').toBeNull();
    await expect(patient.create('cairn-lost-0', pg, { signal: AbortSignal.timeout(400) })).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const found = await patient.create('cairn-lost-0', pg);
    expect(found.clientToken).toBe('cairn-lost-0');
    expect(d.postgresServers().map((s) => s.tags['cairn-key'])).toEqual(['cairn-lost-0']);
    expect(d.calls.filter((c) => c.operationId === 'Servers_CreateOrUpdate'), 'the lost PUT only, never a second').toHaveLength(1);
  });

  it('refuses an engine, size, version or storage Azure does not make before sending anything, and says what Azure refuses', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'westeurope', size: 'db.t3.micro' } }));
    expect([size.constructor, size.field, size.message]).toEqual([VendorRejectedError, 'size', expect.stringContaining('size "db.t3.micro" is not a flexible server compute size')]);
    const version = await refusal(databases.create('cairn-bad-1', { ...pg, version: '9.6' }));
    expect([version.field, version.message]).toEqual(['version', 'azure managed postgresql: version "9.6" is not one Azure creates; versions: 11, 12, 13, 14, 15, 16, 17, 18']);
    const storage = await refusal(databases.create('cairn-bad-2', { ...pg, storageGb: 50 }));
    expect([storage.field, storage.message]).toEqual(['storageGb', expect.stringContaining('storage 50 GB is not a flexible server size; sizes: 32, 64, 128')]);
    const mongo = await refusal(databases.create('cairn-bad-3', { ...pg, type: 'mongodb' }));
    expect(mongo.field).toBe('type');
    expect(d.calls.filter((c) => c.operationId === 'Servers_CreateOrUpdate'), 'nothing sent for what Azure does not make').toEqual([]);
    const unsold = await refusal(databases.create('cairn-bad-4', { ...pg, managed: { region: 'northeurope', size: 'Standard_E2ds_v5' } }));
    expect([unsold.constructor, unsold.message]).toEqual([VendorRejectedError, expect.stringContaining("400 InvalidSkuName The sku 'Standard_E2ds_v5' of tier 'MemoryOptimized' is not available in location 'northeurope'")]);
    expect(d.postgresServers()).toEqual([]);
  });

  it('sets the password at Azure, deletes to the end, and refuses backups, restores and changes saying why', async () => {
    const d = await double({ actionMs: 100 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    await untilCreated(databases, [{ key: 'cairn-pw-0', externalId: created.id }]);
    await databases.setPassword(created.id, 'Cairns-New-Passw0rd');
    expect(d.postgresServers()[0]?.password).toBe('Cairns-New-Passw0rd');
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/on-demand backups of a flexible server live inside the server and are deleted with it.*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toThrow(/restores only into a new server \(createMode PointInTimeRestore\), not in place/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    await expect(databases.update(created.id, { ...pg, managed: { region: 'westeurope', size: 'Standard_B2s' } })).rejects.toThrow(/does not change a flexible server's version, compute or storage/);
    expect(await databases.update(created.id, { ...pg, storageGb: 32 })).toMatchObject({ id: created.id, size: 'Standard_B1ms' });
    await databases.delete(created.id);
    expect(d.postgresServers()).toEqual([]);
    await databases.delete(created.id);
    expect(d.calls.filter((c) => c.operationId === 'Servers_Delete').map((c) => c.status), 'deleted once; the second finds nothing').toEqual([202, 204]);
    await expect(databases.delete('/subscriptions/x/resourceGroups/other/providers/Microsoft.DBforPostgreSQL/flexibleServers/a')).rejects.toThrow(/is not the id of a flexible server in resource group cairn/);
  });

  it("the validator refuses a server body outside the SDK's Server model", async () => {
    const d = await double();
    expect(d.check('postgresql', 'Server', { location: 'westeurope', sku: { name: 'Standard_B1ms' }, properties: { version: 16, state: 'Ready', adminPassword: 'x' } }, 'request')).toEqual([
      'check.sku.tier: required but missing', 'check.properties.version: should be a string, got 16', 'check.properties.state: read-only, yet sent in a request', 'check.properties.adminPassword: not a field of the model',
    ]);
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'azure', title: 'Azure', engines: ['postgresql'], example: 'azure', rotation: 'applied', finalBackupRefusal: 'live inside the server and are deleted with it',
  async start() {
    const d = await startAzureDouble({ clientSecret: 'azure-serve-secret', actionMs: 100, retryAfterSeconds: 0 });
    return {
      endpoint: d.url, env: { AZURE_CREDENTIALS: JSON.stringify({ ...CREDENTIALS, client_secret: 'azure-serve-secret', authority_host: d.url }) }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.postgresServers().map((s) => ({ host: `${s.name}.postgres.database.azure.com`, port: 5432, username: 'cairn', database: 'postgres', password: s.password })),
      checkCreated: () => expect(d.postgresServers()[0]).toMatchObject({ location: 'westeurope', sku: { name: 'Standard_B1ms', tier: 'Burstable' }, version: '16', storageGb: 32, tags: expect.objectContaining({ 'cairn-name': 'orders-db' }) }),
    };
  },
});
