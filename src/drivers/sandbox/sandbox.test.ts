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
import type { CloudDriver, DriverConfig, RuntimeDriver } from '../contract.js';
import { runCloudDriverContract, runRuntimeDriverContract } from '../driver.contract.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { runningInProcessClouds } from './in-process-cloud.js';
import { sandboxVendor } from './index.js';

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
    credentials: undefined, dataDir: tempDir(), requestTimeoutMs: 5_000, ...rest,
  };
}

async function separateCloud(options: Partial<SandboxCloudOptions> = {}): Promise<SandboxCloud> {
  return startSandboxCloud({ dataDir: tempDir(), provisionMs: 0, ...options });
}

async function serversWithToken(cloud: SandboxCloud, token: string): Promise<unknown[]> {
  return (await callSandboxApi(cloud.url, 'GET', `/v1/servers?client_token=${token}`)).body.servers;
}

const webServer = { name: 'web-1', region: 'eu-1', size: 'small', image: 'debian-12' };

runCloudDriverContract('sandbox with endpoint', async () => {
  const cloud = await separateCloud();
  const driver = await sandboxVendor.createCloudDriver(config({ endpoint: cloud.url }));
  return { driver, cleanup: () => cloud.close() };
});

runRuntimeDriverContract('sandbox with endpoint', async () => {
  const cloud = await separateCloud();
  const servers = await sandboxVendor.createCloudDriver(config({ endpoint: cloud.url }));
  const host = await servers.servers.create('runtime-contract-host', webServer);
  await servers.close();
  const driver = await sandboxVendor.createRuntimeDriver(config({ endpoint: cloud.url }));
  return { driver, placement: { serverExternalId: host.id, serverAddress: host.ipv4 }, cleanup: () => cloud.close() };
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
    const db = await runtime.databases.create('db', { name: 'shop-db', type: 'postgresql', version: '16', storageGb: 10, placement: { serverExternalId: host.id, serverAddress: host.ipv4 } });
    await expect(driver.servers.delete(host.id)).rejects.toMatchObject({ name: 'VendorRejectedError', status: 409 });
    await runtime.databases.delete(db.id);
    await driver.servers.delete(host.id);
    expect(await driver.servers.observe({ key: 'host', externalId: host.id })).toBeNull();
  });

  it('sends the Provider credentials as the bearer token and reports refused ones', async () => {
    cloud = await separateCloud({ token: 'the-token' });
    const wrong = await cloudDriver({ credentials: 'wrong' });
    const test = await wrong.testCredentials();
    expect(test.ok).toBe(false);
    expect(test.message).toMatch(/^sandbox: test credentials: 401 /);
    await expect(wrong.regions()).rejects.toBeInstanceOf(VendorAuthError);
    expect((await (await cloudDriver()).testCredentials()).ok).toBe(false);
    expect(await (await cloudDriver({ credentials: 'the-token' })).testCredentials()).toMatchObject({ ok: true });
  });
});
