/**
 * @module Tests of the sandbox vendor's drivers against a real sandbox cloud on a loopback port:
 * the shared driver contract (separate and in-process clouds), error mapping under injected
 * faults, idempotent creates under lost responses and concurrency, validation and tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandboxCloud, type SandboxCloud, type SandboxCloudOptions } from '../../sandbox-cloud/index.js';
import { callSandboxApi } from '../../sandbox-cloud/sandbox-api-call.js';
import { generateMasterKey } from '../../secrets/master-key.js';
import { keyringDataKeys } from '../../secrets/sealed-stream.js';
import type { CloudDriver, DriverConfig, RuntimeDriver, ServerObserved } from '../contract.js';
import { runCloudDriverContract, runRuntimeDriverContract } from '../driver.contract.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { runningInProcessClouds } from './in-process-cloud.js';
import { sandboxVendor } from './index.js';

const MASTER = generateMasterKey();

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-sandbox-driver-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function config(overrides: Partial<DriverConfig> & { endpoint?: string }): DriverConfig {
  const { endpoint, ...rest } = overrides;
  return {
    providerName: 'sandbox', spec: endpoint === undefined ? { vendor: 'sandbox' } : { vendor: 'sandbox', endpoint },
    credentials: undefined, dataDir: tempDir(), requestTimeoutMs: 5_000, dataKeys: keyringDataKeys({ active: MASTER, keys: [MASTER] }), ...rest,
  };
}

async function separateCloud(options: Partial<SandboxCloudOptions> = {}): Promise<SandboxCloud> {
  return startSandboxCloud({ dataDir: tempDir(), provisionMs: 0, ...options });
}

async function serversWithToken(cloud: SandboxCloud, token: string): Promise<unknown[]> {
  return (await callSandboxApi(cloud.url, 'GET', `/v1/servers?client_token=${token}`)).body.servers;
}

const webServer = { name: 'web-1', region: 'eu-1', size: 'small', image: 'debian-12' };
const shopDb = { name: 'shop-db', type: 'postgresql', version: '16', storageGb: 10, password: 'shop-db-password-1' } as const;

runCloudDriverContract('sandbox with endpoint', async () => {
  const cloud = await separateCloud();
  const driver = await sandboxVendor.createCloudDriver(config({ endpoint: cloud.url }));
  return { driver, cleanup: () => cloud.close() };
});

/** Asks the sandbox's login route whether `password` lets the database's user in. */
async function passwordWorks(cloud: SandboxCloud, databaseId: string, username: string, password: string): Promise<boolean> {
  const answer = await callSandboxApi(cloud.url, 'POST', `/v1/databases/${databaseId}/login`, { username, password });
  if (answer.status !== 200 && answer.status !== 401) throw new Error(`sandbox login answered ${answer.status}: ${answer.body.message}`);
  return answer.status === 200;
}

async function hostServer(cloud: SandboxCloud): Promise<ServerObserved> {
  const servers = await sandboxVendor.createCloudDriver(config({ endpoint: cloud.url }));
  const host = await servers.servers.create('runtime-host', webServer);
  await servers.close();
  return host;
}

// Transitions take 50 ms, so that a restore done twice would show in the database's status.
runRuntimeDriverContract('sandbox with endpoint', async () => {
  const cloud = await separateCloud({ provisionMs: 50 });
  const host = await hostServer(cloud);
  const driver = await sandboxVendor.createRuntimeDriver(config({ endpoint: cloud.url }));
  return {
    driver,
    placement: { serverExternalId: host.id, serverAddress: host.ipv4 },
    cleanup: () => cloud.close(),
    passwordWorks: (id, endpoint, password) => passwordWorks(cloud, id, endpoint.username, password),
  };
});

runCloudDriverContract('sandbox in-process', async () => {
  const driver = await sandboxVendor.createCloudDriver(config({}));
  return { driver, cleanup: () => Promise.resolve() };
});

describe('sandbox vendor: in-process cloud', () => {
  it('shares one cloud per data dir, keeps its state, and stops it with the last driver', async () => {
    const dataDir = tempDir();
    const before = runningInProcessClouds();
    const cloudDriver = await sandboxVendor.createCloudDriver(config({ dataDir }));
    const runtime = await sandboxVendor.createRuntimeDriver(config({ dataDir }));
    expect(runningInProcessClouds()).toBe(before + 1);
    const server = await cloudDriver.servers.create('kept', webServer);
    await cloudDriver.close();
    await cloudDriver.close();
    expect(runningInProcessClouds()).toBe(before + 1);
    await runtime.close();
    expect(runningInProcessClouds()).toBe(before);
    const reopened = await sandboxVendor.createCloudDriver(config({ dataDir }));
    expect((await reopened.servers.observe({ key: 'kept' }))?.id).toBe(server.id);
    await reopened.close();
  });

  it('says it is a simulation and refuses an endpoint that is not a URL', async () => {
    expect(sandboxVendor.description).toMatch(/simulated/);
    expect(sandboxVendor.credentialFields).toEqual([{ name: 'token', description: expect.stringContaining('--token'), required: false }]);
    const refused = sandboxVendor.createCloudDriver(config({ endpoint: 'not a url' }));
    await expect(refused).rejects.toBeInstanceOf(VendorRejectedError);
    await expect(refused).rejects.toMatchObject({ field: 'endpoint' });
  });
});

describe('sandbox vendor: errors and idempotency', () => {
  let cloud: SandboxCloud;
  const drivers: Array<CloudDriver | RuntimeDriver> = [];

  async function cloudDriver(overrides: Partial<DriverConfig> = {}): Promise<CloudDriver> {
    const driver = await sandboxVendor.createCloudDriver(config({ endpoint: cloud.url, ...overrides }));
    drivers.push(driver);
    return driver;
  }

  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((d) => d.close()));
    await cloud?.close();
  });

  it('maps an injected 429 to VendorUnavailableError carrying retryAfterMs', async () => {
    cloud = await separateCloud({ errorRate: 1, faultKinds: ['rate_limited'] });
    const error: unknown = await (await cloudDriver()).regions().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VendorUnavailableError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 1000, message: expect.stringMatching(/^sandbox: list regions: 429 /) });
  });

  it('maps the rate limit, 5xx, hangs, dropped and refused connections to VendorUnavailableError', async () => {
    cloud = await separateCloud({ rateLimitPerSecond: 1 });
    const driver = await cloudDriver({ requestTimeoutMs: 300 });
    await driver.sizes();
    await expect(driver.sizes()).rejects.toMatchObject({ name: 'VendorUnavailableError', status: 429, retryAfterMs: expect.any(Number) });
    cloud.setFaults({ rateLimitPerSecond: 0, errorRate: 1, faultKinds: ['server_error'] });
    await expect(driver.sizes()).rejects.toMatchObject({ name: 'VendorUnavailableError', status: 500 });
    cloud.setFaults({ faultKinds: ['unavailable'] });
    await expect(driver.servers.observe({ key: 'k' })).rejects.toMatchObject({ name: 'VendorUnavailableError', status: 503 });
    cloud.setFaults({ faultKinds: ['timeout'], hangMs: 5_000 });
    await expect(driver.regions()).rejects.toThrow(/sandbox: list regions: no answer from .* within 300 ms/);
    cloud.setFaults({ hangMs: 20 });
    await expect(driver.regions()).rejects.toBeInstanceOf(VendorUnavailableError);
    const url = cloud.url;
    await cloud.close();
    const orphan = await sandboxVendor.createCloudDriver(config({ endpoint: url }));
    drivers.push(orphan);
    await expect(orphan.regions()).rejects.toThrow(/request to http:\/\/127\.0\.0\.1:\d+ failed/);
  });

  it('yields exactly one server when a create whose response was lost is retried with the same key', async () => {
    cloud = await separateCloud({ errorRate: 1, faultKinds: ['lost_response'] });
    const driver = await cloudDriver();
    await expect(driver.servers.create('lost-key', webServer)).rejects.toMatchObject({ name: 'VendorUnavailableError', status: 502 });
    await expect(driver.servers.create('lost-key', webServer)).rejects.toBeInstanceOf(VendorUnavailableError);
    cloud.setFaults({ errorRate: 0 });
    const found = await driver.servers.observe({ key: 'lost-key' });
    const retried = await driver.servers.create('lost-key', webServer);
    expect(retried.id).toBe(found?.id);
    expect(await serversWithToken(cloud, 'lost-key')).toHaveLength(1);
  });

  it('yields one server for concurrent creates with the same key', async () => {
    cloud = await separateCloud();
    const driver = await cloudDriver();
    const made = await Promise.all(Array.from({ length: 12 }, () => driver.servers.create('same-key', webServer)));
    expect(new Set(made.map((s) => s.id)).size).toBe(1);
    expect(await serversWithToken(cloud, 'same-key')).toHaveLength(1);
  });

  it('rejects a region the vendor lacks with a message that says what was done and names the field', async () => {
    cloud = await separateCloud();
    const error: unknown = await (await cloudDriver()).servers.create('k', { ...webServer, region: 'mars-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VendorRejectedError);
    expect(error).not.toBeInstanceOf(VendorAuthError);
    expect(error).toMatchObject({
      status: 422, field: 'region',
      message: 'sandbox: create server "web-1": 422 region "mars-1" is not a region of this vendor (regions: eu-1, us-1, ap-1)',
    });
  });

  it('refuses to delete a server that hosts a database (409) and deletes it once the database is gone', async () => {
    cloud = await separateCloud();
    const driver = await cloudDriver();
    const runtime = await sandboxVendor.createRuntimeDriver(config({ endpoint: cloud.url }));
    drivers.push(runtime);
    const host = await driver.servers.create('host', webServer);
    const db = await runtime.databases.create('db', { ...shopDb, placement: { serverExternalId: host.id, serverAddress: host.ipv4 } });
    await expect(driver.servers.delete(host.id)).rejects.toMatchObject({ name: 'VendorRejectedError', status: 409 });
    await runtime.databases.delete(db.id);
    await driver.servers.delete(host.id);
    expect(await driver.servers.observe({ key: 'host', externalId: host.id })).toBeNull();
  });

  it('sends the Provider credentials as the bearer token and reports refused ones', async () => {
    cloud = await separateCloud({ token: 'the-token' });
    const wrong = await cloudDriver({ credentials: { token: 'wrong' } });
    const test = await wrong.testCredentials();
    expect(test.ok).toBe(false);
    expect(test.message).toMatch(/^sandbox: test credentials: 401 /);
    await expect(wrong.regions()).rejects.toBeInstanceOf(VendorAuthError);
    expect((await (await cloudDriver()).testCredentials()).ok).toBe(false);
    expect((await (await cloudDriver({ credentials: { token: '' } })).testCredentials()).ok).toBe(false);
    expect(await (await cloudDriver({ credentials: { token: 'the-token' } })).testCredentials()).toMatchObject({ ok: true });
  });
});

describe('sandbox vendor: passwords, backups, restores and logs', () => {
  let cloud: SandboxCloud;
  let runtime: RuntimeDriver;
  let placement: { serverExternalId: string; serverAddress: string | null };

  async function setUp(options: Partial<SandboxCloudOptions> = {}): Promise<void> {
    cloud = await separateCloud(options);
    const host = await hostServer(cloud);
    placement = { serverExternalId: host.id, serverAddress: host.ipv4 };
    runtime = await sandboxVendor.createRuntimeDriver(config({ endpoint: cloud.url }));
  }

  afterEach(async () => {
    await runtime?.close();
    await cloud?.close();
  });

  it('creates a database with cairn\'s password, which the sandbox then lets in', async () => {
    await setUp();
    const db = await runtime.databases.create('db', { ...shopDb, placement });
    const endpoint = await runtime.databases.endpoint(db.id);
    expect(endpoint).toEqual({ host: placement.serverAddress, port: 5432, username: 'shop_db', database: 'shop-db' });
    expect(await passwordWorks(cloud, db.id, endpoint.username, shopDb.password)).toBe(true);
    const refused = runtime.databases.setPassword(db.id, 'too-short');
    await expect(refused).rejects.toMatchObject({ name: 'VendorRejectedError', status: 422, field: 'password' });
    await expect(runtime.databases.setPassword('nope', 'long-enough-password')).rejects.toMatchObject({ status: 404 });
  });

  it('makes one backup and one restore per key when their responses were lost', async () => {
    await setUp();
    const db = await runtime.databases.create('db', { ...shopDb, placement });
    cloud.setFaults({ errorRate: 1, faultKinds: ['lost_response'] });
    await expect(runtime.databases.createBackup(db.id, 'backup-key')).rejects.toMatchObject({ name: 'VendorUnavailableError', status: 502 });
    cloud.setFaults({ errorRate: 0 });
    const found = await runtime.databases.observeBackup({ key: 'backup-key' });
    expect((await runtime.databases.createBackup(db.id, 'backup-key')).id).toBe(found?.id);
    expect((await callSandboxApi(cloud.url, 'GET', '/v1/backups')).body.backups).toHaveLength(1);

    cloud.setFaults({ errorRate: 1 });
    await expect(runtime.databases.restore(db.id, found?.id ?? '', 'restore-key')).rejects.toBeInstanceOf(VendorUnavailableError);
    cloud.setFaults({ errorRate: 0 });
    expect((await runtime.databases.restore(db.id, found?.id ?? '', 'restore-key')).status).toBe('available');
    const restores = (await callSandboxApi(cloud.url, 'GET', `/v1/databases/${db.id}/restores`)).body.restores;
    expect(restores.map((r) => r.client_token)).toEqual(['restore-key']);
  });

  it('reports a restore the sandbox refuses as VendorRejectedError saying why', async () => {
    await setUp({ provisionMs: 1000 });
    const db = await runtime.databases.create('db', { ...shopDb, placement });
    const backup = await runtime.databases.createBackup(db.id, 'early');
    expect(backup.status).toBe('pending');
    const early: unknown = await runtime.databases.restore(db.id, backup.id, 'r').catch((e: unknown) => e);
    expect(early).toBeInstanceOf(VendorRejectedError);
    expect(early).toMatchObject({ status: 409, message: expect.stringMatching(/^sandbox: restore backup .+ into database .+: 409 backup .+ is (pending|running); only a completed backup can be restored$/) });
    const mongo = await runtime.databases.create('mongo', { ...shopDb, name: 'events', type: 'mongodb', version: '7', storageGb: null, placement });
    await expect(runtime.databases.restore(mongo.id, backup.id, 'r2')).rejects.toMatchObject({ status: 422, field: 'backup_id' });
  });

  it('reads app logs through the driver and refuses a tail beyond 1000', async () => {
    await setUp();
    const app = await runtime.apps.create('app', {
      name: 'shop', placement, source: { image: 'nginx:1.27' }, build: null, command: 'nginx', port: 8080,
      env: { DATABASE_URL: 'postgresql://shop_db:secret-value-12@host/shop' }, healthCheckPath: null, state: 'running',
    });
    expect(app.commit).toBeNull();
    const logs = await runtime.apps.logs(app.id, { tail: 2 });
    expect(logs.map((l) => [l.stream, l.line])).toEqual([['system', 'release 1: starting "nginx" on port 8080'], ['system', 'release 1: started']]);
    await expect(runtime.apps.logs(app.id, { tail: 1001 })).rejects.toMatchObject({ name: 'VendorRejectedError', status: 422, field: 'tail' });
    const shown = (await callSandboxApi(cloud.url, 'GET', `/v1/apps/${app.id}`)).body.app;
    expect(JSON.stringify(shown)).not.toContain('secret-value-12');
  });
});
