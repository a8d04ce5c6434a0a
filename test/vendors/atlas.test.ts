/**
 * @module MongoDB Atlas (managed MongoDB clusters) against the Atlas double, every request and
 * answer checked against Atlas's own OpenAPI document at the version each operation names:
 * a databases-only vendor (no cloud or runtime driver, its Provider tested through the managed
 * service by the driver pool), clusters named from cairn's key and tagged with it, a create whose
 * answer was lost found by that name (never a second cluster), region, size and engine refused
 * before anything is sent (the offer read across pages), an in-place resize followed to IDLE,
 * cairn's password on a database user and changed by setPassword, on-demand snapshots keyed by
 * cairn's key (found again across pages and after the cluster is gone), a restore done once per
 * key, the service account's token and bad credentials, Atlas's 429s and 5xx, the outbound
 * guard, and a validator that does refuse a request outside the document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { DatabaseDesired, DatabaseRuntime, DriverConfig } from '../../src/drivers/contract.js';
import { atlasVendor, type AtlasManagedDatabaseDriver } from '../../src/drivers/atlas/index.js';
import { clusterNameFor } from '../../src/drivers/atlas/cluster-wire.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import type { StoredResource } from '../../src/model/resource.js';
import { DriverPool } from '../../src/reconcile/driver-pool.js';
import { Store } from '../../src/store/store.js';
import { startAtlasDouble, type AtlasDouble, type AtlasDoubleOptions } from '../doubles/atlas.js';
import { SLOW_ENOUGH_ACTION_MS, untilCreated } from '../support/managed-database-wait.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';

const setup = vendorTestSetup('atlas', 'MongoDB Atlas', (options: AtlasDoubleOptions) => startAtlasDouble(options));

function config(d: AtlasDouble, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(d.url, { credentials: { clientId: d.clientId, clientSecret: d.clientSecret, projectId: d.projectId }, ...overrides });
}

async function managed(d: AtlasDouble, overrides: Partial<DriverConfig> = {}): Promise<AtlasManagedDatabaseDriver> {
  const create = atlasVendor.createManagedDatabases?.bind(atlasVendor);
  if (!create) throw new Error('atlas has no managed databases');
  return (await create(config(d, overrides))) as AtlasManagedDatabaseDriver;
}

async function service(d: AtlasDouble, overrides: Partial<DriverConfig> = {}): Promise<DatabaseRuntime> {
  return (await managed(d, overrides)).databases;
}

const NO_SERVER = { serverExternalId: '', serverAddress: null };
const mongo: DatabaseDesired = {
  name: 'events-db', type: 'mongodb', version: '7.0', storageGb: null, placement: NO_SERVER, managed: { region: 'AWS:EU_CENTRAL_1', size: 'M10' }, password: 'cairns-own-password',
};

const refusal = (promise: Promise<unknown>): Promise<VendorRejectedError> => promise.then(() => { throw new Error('not refused'); }, (error: unknown) => error as VendorRejectedError);
const calls = (d: AtlasDouble, operationId: string): number => d.calls.filter((c) => c.operationId === operationId).length;

describe('atlas: a vendor of databases only', () => {
  it('runs managed MongoDB, lists its credentials, and refuses servers and runtimes saying why', async () => {
    expect(atlasVendor.managedDatabaseEngines).toEqual(['mongodb']);
    expect(atlasVendor.credentialFields.map((f) => f.name)).toEqual(['clientId', 'clientSecret', 'projectId']);
    const d = await setup.double();
    await expect(atlasVendor.createCloudDriver(config(d))).rejects.toThrow(new UnsupportedError('atlas: MongoDB Atlas runs managed MongoDB clusters, not servers: use it for Databases with managed: true and type: mongodb (provider, region, size), and another vendor for Servers and Apps'));
    await expect(atlasVendor.createRuntimeDriver(config(d))).rejects.toBeInstanceOf(UnsupportedError);
    expect(d.calls).toEqual([]);
  });

  it('has its Provider tested by the driver pool through the managed service: valid credentials, then a wrong secret said plainly', async () => {
    const d = await setup.double();
    const dir = mkdtempSync(join(tmpdir(), 'cairn-atlas-pool-'));
    const store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
    try {
      const bundle = (secret: string): string => JSON.stringify({ clientId: d.clientId, clientSecret: secret, projectId: d.projectId });
      const provider = (name: string, variable: string): StoredResource<'Provider'> => store.resources.create('default', 'api', {
        apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name }, spec: { vendor: 'atlas', endpoint: d.url, credentialsRef: { env: variable } },
      }) as StoredResource<'Provider'>;
      const pool = new DriverPool({ dataDir: dir, requestTimeoutMs: 5_000, secrets: store.secrets, dataKeys: store.secrets, env: { ATLAS_GOOD: bundle(d.clientSecret), ATLAS_BAD: bundle('wrong') } });
      try {
        expect(await pool.credentialTestFor(provider('atlas', 'ATLAS_GOOD'))).toEqual({ ok: true, message: `the service account reaches Atlas project "cairn-test" (${d.projectId})` });
        expect(await pool.credentialTestFor(provider('atlas-bad', 'ATLAS_BAD'))).toEqual({
          ok: false, message: 'atlas: exchange the service account for an access token: 401 Invalid client credentials. (invalid_client)',
        });
      } finally {
        await pool.close();
      }
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses credentials without a project, or with one that is not an Atlas id, naming the field', async () => {
    const d = await setup.double();
    await expect(managed(d, { credentials: { clientId: 'a', clientSecret: 'b' } })).rejects.toThrow(new VendorAuthError('Provider/atlas: atlas needs credentials with "clientId", "clientSecret" and "projectId" (a JSON object); "projectId" (the project (group) id) is missing'));
    const bad = await refusal(managed(d, { credentials: { clientId: 'a', clientSecret: 'b', projectId: 'my-project' } }));
    expect([bad.field, bad.message]).toEqual(['projectId', 'Provider/atlas: atlas projectId "my-project" is not an Atlas project id (24 hex digits)']);
  });
});

describe('atlas managed MongoDB', () => {
  it('creates a three-member replica set named from the key and tagged with it, with cairn’s password on its database user; creating, then available', async () => {
    const d = await setup.double({ actionMs: SLOW_ENOUGH_ACTION_MS });
    const databases = await service(d);
    const created = await databases.create('cairn-mongo-0', { ...mongo, storageGb: 40 });
    const name = clusterNameFor('cairn-mongo-0');
    expect(name).toMatch(/^cairn-[0-9a-f]{16}$/);
    expect(created).toMatchObject({ id: name, name: 'events-db', clientToken: 'cairn-mongo-0', type: 'mongodb', version: '7.0', size: 'M10', storageGb: 40, status: 'creating', serverId: '' });
    expect(d.clusters().map((c) => [c.name, c.provider, c.region, c.instanceSize, c.nodeCount, c.diskSizeGB, c.version, c.tags])).toEqual([
      [name, 'AWS', 'EU_CENTRAL_1', 'M10', 3, 40, '7.0', [{ key: 'cairn-key', value: 'cairn-mongo-0' }, { key: 'cairn-name', value: 'events-db' }, { key: 'managed-by', value: 'cairn' }]],
    ]);
    expect(d.users()).toEqual([{ username: name, password: 'cairns-own-password', roles: [{ databaseName: 'admin', roleName: 'readWriteAnyDatabase' }], scopes: [{ name, type: 'CLUSTER' }] }]);
    await untilCreated(databases, [{ key: 'cairn-mongo-0' }]);
    const host = d.clusters()[0]?.host ?? '';
    expect(await databases.observe({ key: 'cairn-mongo-0', externalId: name })).toMatchObject({ status: 'available', host: `${name}.${host}`, port: 27017, engineVersion: '7.0.3' });
    expect(await databases.endpoint(name)).toEqual({ host: `${name}.${host}`, port: 27017, username: name, database: 'admin', srv: true });
    expect(await databases.observe({ key: 'cairn-none' })).toBeNull();
    expect(d.tokensIssued(), 'one token serves every request until it expires').toBe(1);
  });

  it('finds a cluster whose create answer was lost by its name, and never makes a second', async () => {
    const d = await setup.double({ slowAnswers: { operationIds: ['createCluster'], ms: 600 } });
    const impatient = await service(d, { requestTimeoutMs: 300 });
    await expect(impatient.create('cairn-lost-0', mongo)).rejects.toBeInstanceOf(VendorUnavailableError);
    expect(d.clusters(), 'Atlas made it; the answer never arrived').toHaveLength(1);
    expect(d.users(), 'so no database user yet').toEqual([]);
    const patient = await service(d);
    const found = await patient.create('cairn-lost-0', mongo);
    expect(found).toMatchObject({ id: clusterNameFor('cairn-lost-0'), clientToken: 'cairn-lost-0' });
    expect(d.clusters()).toHaveLength(1);
    expect(d.users().map((u) => [u.username, u.password]), 'the found cluster gets its user with cairn’s password').toEqual([[clusterNameFor('cairn-lost-0'), 'cairns-own-password']]);
    expect(calls(d, 'createCluster')).toBe(1);
  });

  it('reads back its own cluster when Atlas says the name is taken (409) by a create that raced it', async () => {
    const d = await setup.double();
    const databases = await service(d);
    const [one, two] = await Promise.all([databases.create('cairn-race-0', mongo), databases.create('cairn-race-0', mongo)]);
    expect(one.id).toBe(two.id);
    expect(d.calls.filter((c) => c.operationId === 'createCluster').map((c) => c.status).sort(), 'both sent; the second refused by name').toEqual([201, 409]);
    expect(d.clusters()).toHaveLength(1);
    expect(d.users()).toHaveLength(1);
  });

  it('refuses a cluster of its name that carries another key instead of taking it over', async () => {
    const d = await setup.double();
    const databases = await service(d);
    await databases.create('cairn-owner-0', mongo);
    const cluster = d.clusters()[0];
    if (cluster) cluster.tags = [{ key: 'cairn-key', value: 'someone-else' }];
    await expect(databases.create('cairn-owner-0', mongo)).rejects.toThrow(`atlas: cluster ${clusterNameFor('cairn-owner-0')} exists in the project but carries the cairn-key "someone-else", not "cairn-owner-0": cairn does not take it over`);
    expect(calls(d, 'createCluster')).toBe(1);
  });

  it('refuses a region, size or engine Atlas does not offer before creating anything, reading the offer across pages', async () => {
    const d = await setup.double();
    const databases = await service(d);
    const region = await refusal(databases.create('cairn-bad-0', { ...mongo, managed: { region: 'AWS:MARS_NORTH_1', size: 'M10' } }));
    expect([region.field, region.message]).toEqual(['region', expect.stringMatching(/^atlas: region "AWS:MARS_NORTH_1" is not offered \(a region is PROVIDER:REGION_NAME\); regions: AWS:EU_CENTRAL_1, AWS:EU_WEST_1, AWS:US_EAST_1, AZURE:EUROPE_WEST/)]);
    const size = await refusal(databases.create('cairn-bad-1', { ...mongo, managed: { region: 'GCP:CENTRAL_US', size: 'M40' } }));
    expect([size.field, size.message]).toEqual(['size', 'atlas: instance size "M40" is not offered in GCP:CENTRAL_US; sizes there: M10, M20']);
    const shape = await refusal(databases.create('cairn-bad-2', { ...mongo, managed: { region: 'eu-central-1', size: 'M10' } }));
    expect([shape.field, shape.message]).toEqual(['region', 'atlas: region "eu-central-1" is not PROVIDER:REGION_NAME (e.g. AWS:EU_CENTRAL_1)']);
    const engine = await refusal(databases.create('cairn-bad-3', { ...mongo, type: 'postgresql', version: '16' }));
    expect([engine.field, engine.message]).toEqual(['type', 'atlas: database "events-db" is postgresql; Atlas runs MongoDB only']);
    expect(calls(d, 'createCluster'), 'nothing created for what Atlas does not offer').toBe(0);
    expect(calls(d, 'listCloudProviderRegions'), 'three providers at two a page: two pages; read again once on each miss').toBe(6);
  });

  it('resizes in place and follows the change until IDLE; an unchanged spec sends nothing; an unknown size is refused before sending', async () => {
    const d = await setup.double({ actionMs: 100 });
    const databases = await service(d);
    const created = await databases.create('cairn-resize-0', mongo);
    const resized = await databases.update(created.id, { ...mongo, managed: { region: 'AWS:EU_CENTRAL_1', size: 'M30' }, storageGb: 60 });
    expect(resized).toMatchObject({ id: created.id, size: 'M30', storageGb: 60, status: 'available' });
    expect(d.clusters()).toEqual([expect.objectContaining({ instanceSize: 'M30', diskSizeGB: 60, state: 'IDLE' })]);
    expect(calls(d, 'updateCluster')).toBe(1);
    await databases.update(created.id, { ...mongo, managed: { region: 'AWS:EU_CENTRAL_1', size: 'M30' }, storageGb: 60 });
    expect(calls(d, 'updateCluster'), 'nothing to change: nothing sent').toBe(1);
    await expect(databases.update(created.id, { ...mongo, managed: { region: 'AWS:EU_CENTRAL_1', size: 'M40' } })).rejects.toThrow('atlas: instance size "M40" is not offered in AWS:EU_CENTRAL_1; sizes there: M10, M20, M30');
    expect(calls(d, 'updateCluster')).toBe(1);
    const upgraded = await databases.update(created.id, { ...mongo, version: '8.0', managed: { region: 'AWS:EU_CENTRAL_1', size: 'M30' }, storageGb: 60 });
    expect(upgraded.version, 'a new major version is changed in place').toBe('8.0');
    await databases.delete(created.id);
    await databases.delete(created.id);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(d.clusters()).toEqual([]);
  });

  it('sets a new password on the cluster’s database user', async () => {
    const d = await setup.double({ actionMs: 50 });
    const databases = await service(d);
    const created = await databases.create('cairn-pw-0', mongo);
    await databases.setPassword(created.id, 'cairns-new-one');
    await databases.setPassword(created.id, 'cairns-new-one');
    expect(d.users().map((u) => [u.username, u.password])).toEqual([[created.id, 'cairns-new-one']]);
  });

  it('takes on-demand snapshots keyed by cairn’s key, finds them again across pages and after the cluster is gone, restores once per key, and deletes them', async () => {
    const d = await setup.double({ actionMs: 800 });
    const databases = await service(d);
    const created = await databases.create('cairn-backup-db', mongo);
    await untilCreated(databases, [{ key: 'cairn-backup-db' }]);
    const first = await databases.createBackup(created.id, 'cairn-b-0');
    expect(first).toMatchObject({ databaseId: created.id, clientToken: 'cairn-b-0', checksum: null });
    expect(first.id).toMatch(new RegExp(`^${created.id}/[0-9a-f]{24}$`));
    await databases.createBackup(created.id, 'cairn-b-1');
    const third = await databases.createBackup(created.id, 'cairn-b-2');
    expect(await databases.createBackup(created.id, 'cairn-b-2'), 'the same key again: the first snapshot (found on the second page)').toMatchObject({ id: third.id });
    expect(d.snapshots()).toHaveLength(3);
    expect(d.snapshots().map((s) => s.description)).toEqual(['cairn-key:cairn-b-0', 'cairn-key:cairn-b-1', 'cairn-key:cairn-b-2']);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await databases.observeBackup({ key: 'cairn-b-0', externalId: first.id })).toMatchObject({ status: 'completed', sizeBytes: 1_048_576 });

    const restoring = await databases.restore(created.id, first.id, 'cairn-restore-0');
    expect(restoring.status).toBe('restoring');
    expect(await databases.observe({ key: 'cairn-backup-db', externalId: created.id })).toMatchObject({ status: 'restoring' });
    await databases.restore(created.id, first.id, 'cairn-restore-0');
    expect(calls(d, 'createBackupRestoreJob'), 'the same key does not restore twice').toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await databases.observe({ key: 'cairn-backup-db', externalId: created.id })).toMatchObject({ status: 'available' });
    expect(d.clusters()[0]?.restoredFrom).toEqual([first.id.split('/')[1]]);

    await databases.delete(created.id);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(d.clusters()).toEqual([]);
    expect(await databases.observeBackup({ key: 'cairn-b-1' }), 'kept after the cluster, found by key alone').toMatchObject({ clientToken: 'cairn-b-1', status: 'completed' });
    await databases.deleteBackup(first.id);
    await databases.deleteBackup(first.id);
    expect(d.snapshots()).toHaveLength(2);
    expect(await databases.observeBackup({ key: 'cairn-b-0', externalId: first.id })).toBeNull();
  });
});

describe('atlas faults', () => {
  it('waits out Atlas’s 429 (its Retry-After) and carries on', async () => {
    const d = await setup.double({ rateLimit: { limit: 3, windowMs: 1_000 } });
    const databases = await service(d);
    const started = Date.now();
    const found = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => databases.observe({ key: `cairn-none-${i}` })));
    expect(found).toEqual([null, null, null, null, null, null]);
    expect(d.calls.some((c) => c.status === 429)).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('sends a read again after a 503, and says Atlas’s own message and code when it refuses', async () => {
    const d = await setup.double();
    const databases = await service(d);
    await databases.observe({ key: 'warm-up' });
    d.failNext(1, 503);
    expect(await databases.observe({ key: 'cairn-none' })).toBeNull();
    
    await expect(databases.restore('cairn-0000000000000000', 'cairn-0000000000000000/0123456789abcdef01234567', 'k')).rejects.toThrow('atlas: restore snapshot cairn-0000000000000000/0123456789abcdef01234567 into cluster cairn-0000000000000000: cluster cairn-0000000000000000 no longer exists');
    const gone = await refusal(databases.deleteBackup('not-a-backup'));
    expect(gone.message).toBe('atlas: "not-a-backup" is not a backup cairn took at Atlas (CLUSTER/SNAPSHOT_ID)');
  });

  it('is refused by the outbound guard at a loopback endpoint when private endpoints are closed, and nothing reaches Atlas', async () => {
    const d = await setup.double();
    vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', '');
    try {
      const databases = await service(d);
      const refused = await refusal(databases.observe({ key: 'cairn-guard' }));
      expect(refused.field).toBe('endpoint');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(d.calls).toEqual([]);
  });

  it('has a validator that refuses a request outside Atlas’s document (and a request of the wrong version)', async () => {
    const d = await startAtlasDouble();
    try {
      const token = await fetch(`${d.url}/api/oauth/token`, {
        method: 'POST', body: 'grant_type=client_credentials',
        headers: { authorization: `Basic ${Buffer.from(`${d.clientId}:${d.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
      const type = 'application/vnd.atlas.2024-10-23+json';
      const bad = await fetch(`${d.url}/api/atlas/v2/groups/${d.projectId}/clusters`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, accept: type, 'content-type': type }, body: JSON.stringify({ name: 'has spaces', clusterType: 'RING' }),
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: 400, errorCode: 'INVALID_INPUT' });
      await fetch(`${d.url}/api/atlas/v2/groups/${d.projectId}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
      expect(d.violations).toEqual([
        'createCluster: request breaks the document: /requestBody/clusterType must be equal to one of the allowed values',
        'getProject: Accept "application/json", the document\'s version is "application/vnd.atlas.2023-01-01+json"',
      ]);
    } finally {
      await d.stop();
    }
  });
});
