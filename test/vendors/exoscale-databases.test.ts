/**
 * @module Exoscale's DBaaS for PostgreSQL against the Exoscale double (every request signed and
 * checked against Exoscale's document): a service named from cairn's key and created with
 * cairn's password and no termination protection, `rebuilding` and then `running`; a create
 * whose answer was lost found by that name (never a second service); plan, zone and version
 * refused before anything is sent; a plan change in place; a version change and a disk the
 * plan does not have refused saying why; the password reset at Exoscale; backups refused saying
 * why. End to end with a real `cairn serve`: examples/vendors/exoscale/database.yaml becomes
 * available with cairn's password at Exoscale, a rotation reaches Exoscale, a delete stalls on
 * the final backup naming the annotation, and with `skip_final_backup` leaves nothing.
 */
import { describe, expect, it } from 'vitest';
import type { DatabaseDesired, DatabaseRuntime, DriverConfig } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { serviceNameFor } from '../../src/drivers/exoscale/dbaas-wire.js';
import { exoscaleVendor } from '../../src/drivers/exoscale/index.js';
import { startExoscaleDouble, type ExoscaleDouble, type ExoscaleDoubleOptions } from '../doubles/exoscale.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';

const SECRET = 'exoscale-db-secret';
const setup = vendorTestSetup('exoscale', 'Exoscale', (options: ExoscaleDoubleOptions) => startExoscaleDouble({ ...options, secret: SECRET }));
const { double, token } = setup;

function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(url, { credentials: { api_key: token, api_secret: SECRET }, ...overrides });
}

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const pg: DatabaseDesired = {
  name: 'orders-db', type: 'postgresql', version: '16', storageGb: null, placement: NO_SERVER, managed: { region: 'ch-gva-2', size: 'hobbyist-2' }, password: 'cairns-own-password_0123',
};

async function service(d: ExoscaleDouble, requestTimeoutMs = 5_000): Promise<DatabaseRuntime> {
  const create = exoscaleVendor.createManagedDatabases?.bind(exoscaleVendor);
  if (!create) throw new Error('exoscale has no managed databases');
  return (await create(config(d.url, { requestTimeoutMs }))).databases;
}

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> =>
  promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);

describe('exoscale managed databases', () => {
  it('offers PostgreSQL only', () => {
    expect(exoscaleVendor.managedDatabaseEngines).toEqual(['postgresql']);
  });

  it('names the service from the key, creates it with cairn’s password and no termination protection, rebuilding and then available', async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const name = serviceNameFor('cairn-pg-0');
    expect(name).toMatch(/^cairn-[0-9a-f]{24}$/);
    expect(serviceNameFor('cairn-pg-0'), 'the same key, the same name').toBe(name);
    expect(serviceNameFor('cairn-pg-1')).not.toBe(name);
    const created = await databases.create('cairn-pg-0', pg);
    expect(created).toMatchObject({ id: `${name}@ch-gva-2`, name, type: 'postgresql', version: '16', size: 'hobbyist-2', status: 'creating', storageGb: 8, serverId: '', clientToken: 'cairn-pg-0' });
    expect(d.pgServices()).toEqual([expect.objectContaining({ name, plan: 'hobbyist-2', version: '16', adminUser: 'cairn', password: pg.password, terminationProtection: false })]);
    await untilCreated(databases, [{ key: 'cairn-pg-0', externalId: created.id }]);
    const host = d.pgServices()[0]?.host;
    expect(await databases.observe({ key: 'cairn-pg-0', externalId: created.id })).toMatchObject({ status: 'available', host, port: 21699, engineVersion: '16.4', clientToken: 'cairn-pg-0' });
    expect(await databases.observe({ key: 'cairn-pg-0' }), 'found by the key alone').toMatchObject({ id: created.id, status: 'available' });
    expect(await databases.observe({ key: 'cairn-none', externalId: `${serviceNameFor('cairn-none')}@ch-gva-2` })).toBeNull();
    expect(await databases.endpoint(created.id)).toEqual({ host, port: 21699, username: 'cairn', database: 'defaultdb' });
  });

  it('finds a service whose create answer was lost by its name, and never makes a second one', async () => {
    const d = await double({ slowAnswers: { operationIds: ['create-dbaas-service-pg'], ms: 400 } });
    const impatient = await service(d, 150);
    await expect(impatient.create('cairn-lost-0', pg)).rejects.toBeInstanceOf(VendorUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const found = await (await service(d)).create('cairn-lost-0', pg);
    expect(found.id).toBe(`${serviceNameFor('cairn-lost-0')}@ch-gva-2`);
    expect(d.pgServices()).toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'create-dbaas-service-pg')).toHaveLength(1);
  });

  it('refuses a plan, zone, version or disk Exoscale does not offer before sending anything, naming the valid ones', async () => {
    const d = await double();
    const databases = await service(d);
    const size = await refusal(databases.create('cairn-bad-0', { ...pg, managed: { region: 'ch-gva-2', size: 'standard.small' } }));
    expect(size).toBeInstanceOf(VendorRejectedError);
    expect([size.field, size.message]).toEqual(['size', 'exoscale managed postgresql: size "standard.small" is not a plan in ch-gva-2; plans: hobbyist-2, startup-4, business-8']);
    const zoned = await refusal(databases.create('cairn-bad-1', { ...pg, managed: { region: 'bg-sof-1', size: 'business-8' } }));
    expect([zoned.field, zoned.message]).toEqual(['size', 'exoscale managed postgresql: size "business-8" is not a plan in bg-sof-1; plans: hobbyist-2, startup-4']);
    const version = await refusal(databases.create('cairn-bad-2', { ...pg, version: '12' }));
    expect([version.field, version.message]).toEqual(['version', 'exoscale managed postgresql: version "12" is not offered; versions: 13, 14, 15, 16, 17']);
    const disk = await refusal(databases.create('cairn-bad-3', { ...pg, storageGb: 50 }));
    expect([disk.field, disk.message]).toEqual(['storageGb', "exoscale managed postgresql: storageGb 50 cannot be chosen: Exoscale's plan fixes the disk (hobbyist-2: 8 GB); leave storageGb unset or choose a plan with that disk"]);
    const zone = await refusal(databases.create('cairn-bad-5', { ...pg, managed: { region: 'us-nyc-1', size: 'hobbyist-2' } }));
    expect([zone.field, zone.message]).toEqual(['region', 'exoscale managed postgresql: region "us-nyc-1" is not an Exoscale zone; zones: ch-gva-2, ch-dk-2, de-fra-1, de-muc-1, at-vie-1, at-vie-2, bg-sof-1, hr-zag-1']);
    const password = await refusal(databases.create('cairn-bad-6', { ...pg, password: 'short' }));
    expect([password.field, password.message]).toEqual(['password', 'exoscale managed postgresql: the password must be 8 to 256 letters, digits, "-" or "_" (Exoscale takes no other admin password)']);
    const mongo = await refusal(databases.create('cairn-bad-4', { ...pg, type: 'mongodb' }));
    expect(mongo.field).toBe('type');
    expect(d.calls.filter((c) => c.operationId === 'create-dbaas-service-pg'), 'nothing sent for what Exoscale does not offer').toEqual([]);
    expect(await databases.create('cairn-disk-0', { ...pg, storageGb: 8 }), 'the plan’s own disk is accepted').toMatchObject({ storageGb: 8 });
  });

  it('changes the plan in place and follows it until running; refuses a version change saying why; a delete is done twice', async () => {
    const d = await double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-resize-0', pg);
    const resized = await databases.update(created.id, { ...pg, managed: { region: 'ch-gva-2', size: 'startup-4' } });
    expect(resized).toMatchObject({ id: created.id, size: 'startup-4', status: 'available', storageGb: 80 });
    expect(d.pgServices()).toEqual([expect.objectContaining({ plan: 'startup-4', state: 'running' })]);
    expect(d.calls.filter((c) => c.operationId === 'update-dbaas-service-pg')).toHaveLength(1);
    await databases.update(created.id, { ...pg, managed: { region: 'ch-gva-2', size: 'startup-4' } });
    expect(d.calls.filter((c) => c.operationId === 'update-dbaas-service-pg'), 'nothing to change: no update').toHaveLength(1);
    await expect(databases.update(created.id, { ...pg, managed: { region: 'ch-gva-2', size: 'premium-225' } })).rejects.toThrow(/size "premium-225" is not a plan in ch-gva-2/);
    expect(d.calls.filter((c) => c.operationId === 'update-dbaas-service-pg'), 'an unknown plan is refused before anything is sent').toHaveLength(1);
    await expect(databases.update(created.id, { ...pg, version: '17', managed: { region: 'ch-gva-2', size: 'startup-4' } })).rejects.toThrow(
      new UnsupportedError(
        `exoscale: database service ${created.id} runs postgresql 16; Exoscale changes a service's major version only through its own upgrade endpoint, which cairn does not drive: set spec.version back to "16", or replace the database (a new one on 17) and move the data`,
      ),
    );
    await databases.delete(created.id);
    await databases.delete(created.id);
    expect(d.pgServices()).toEqual([]);
    await expect(databases.observe({ key: 'x', externalId: 'not-an-id' })).resolves.toBeNull();
  });

  it('resets the admin user’s password at Exoscale, and refuses backups and restores saying why', async () => {
    const d = await double({ actionMs: 50 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', pg);
    await databases.setPassword(created.id, 'cairns-new-one_4567');
    expect(d.pgServices()[0]?.password).toBe('cairns-new-one_4567');
    expect(d.calls.filter((c) => c.operationId === 'get-operation').length, 'the reset operation followed to its end').toBeGreaterThan(0);
    await databases.setPassword(created.id, 'cairns-new-one_4567');
    await expect(databases.createBackup(created.id, 'cairn-backup-0')).rejects.toThrow(/Exoscale takes backups .* own schedule .* no endpoint to take one on demand.*cairn\.dev\/skip-final-backup/);
    await expect(databases.restore(created.id, 'b', 'k')).rejects.toBeInstanceOf(UnsupportedError);
    expect(await databases.observeBackup({ key: 'cairn-backup-0' })).toBeNull();
    await databases.deleteBackup('anything');
  });
});

describeManagedDatabaseThroughServe({
  vendor: 'exoscale', title: 'Exoscale', engines: ['postgresql'], example: 'exoscale', rotation: 'applied', finalBackupRefusal: 'no endpoint to take one on demand',
  async start() {
    const credentials = { api_key: 'EXOserveKey', api_secret: 'exoscale-serve-secret' };
    const d = await startExoscaleDouble({ token: credentials.api_key, secret: credentials.api_secret, actionMs: 100 });
    return {
      endpoint: d.url, env: { EXOSCALE_CREDENTIALS: JSON.stringify(credentials) }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.pgServices().map((x) => ({ host: x.host, port: 21699, username: 'cairn', database: 'defaultdb', password: x.password })),
      checkCreated: () => expect(d.pgServices()[0]).toMatchObject({ plan: 'hobbyist-2', version: '16', adminUser: 'cairn', terminationProtection: false }),
    };
  },
});
