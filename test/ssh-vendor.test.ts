/**
 * The `ssh` vendor's cloud driver against a real OpenSSH server on loopback: a bring-your-own host
 * is adopted (verified, marked), found again by key and by id, adopted once only, measured from
 * /proc, rebooted detached but never powered off or on, reported in error (not gone) when it
 * cannot be reached, and forgotten on delete with nothing else on it touched. The cases of the
 * cloud driver contract that fit a vendor without a region catalogue are here (the contract
 * itself starts from a region and size, which this vendor has none of).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudDriver, DriverConfig, ServerDesired } from '../src/drivers/contract.js';
import { UnsupportedError, VendorRejectedError } from '../src/drivers/errors.js';
import { SshCloudDriver, POWER_REFUSED } from '../src/drivers/ssh/cloud-driver.js';
import { SshHosts } from '../src/drivers/ssh/hosts.js';
import { sshVendor } from '../src/drivers/ssh/index.js';
import { RuntimeIndex } from '../src/drivers/ssh/runtime-index.js';
import { MemoryHostKeyPins, SshConnections } from '../src/ssh/index.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';


async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(() => undefined, (error: unknown) => error);
  if (!(outcome instanceof Error)) throw new Error(`expected a rejection with an Error, got ${String(outcome)}`);
  return outcome;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !check()) await new Promise((r) => setTimeout(r, 50));
  return check();
}

describe('the ssh vendor: bring-your-own hosts over SSH', () => {
  let fx: SshRuntimeFixture;
  let driver: CloudDriver;
  let config: DriverConfig;
  let n = 0;
  const key = (label: string): string => `ssh-vendor-test-${label}-${(n += 1)}`;
  const desired = (name: string): ServerDesired => ({ name, region: '', size: '', image: 'debian-12', ssh: { host: fx.target.host, port: fx.target.port, user: fx.target.user } });
  const markerPath = (): string => join(fx.runtimeDir, 'server.json');

  beforeAll(async () => {
    fx = await startSshRuntimeFixture();
    config = { providerName: 'byo', spec: { vendor: 'ssh' }, credentials: undefined, dataDir: fx.dataDir, requestTimeoutMs: 10_000, dataKeys: fx.options.dataKeys, ssh: fx.access };
    driver = await sshVendor.createCloudDriver(config);
  });

  afterAll(async () => {
    await driver?.close();
    await fx?.cleanup();
  });

  it('has no region catalogue and no credentials; its credential test names the runtime key to install', async () => {
    expect(driver.vendor).toBe('ssh');
    expect(await driver.regions()).toEqual([]);
    expect(await driver.sizes()).toEqual([]);
    expect(driver.metricsUnsupported).toBeUndefined();
    const test = await driver.testCredentials();
    expect(test.ok).toBe(true);
    expect(test.message).toMatch(/runtime key for this tenant \(SHA256:[A-Za-z0-9+/]{43}\)/);
    expect(test.message).toContain('GET /ssh-keys/runtime');
  });

  it('needs the SSH access the driver pool gives, takes no endpoint, and runs databases and apps over SSH', async () => {
    await expect(sshVendor.createCloudDriver({ ...config, ssh: undefined })).rejects.toThrow(UnsupportedError);
    await expect(sshVendor.createCloudDriver({ ...config, spec: { vendor: 'ssh', endpoint: 'https://example.com' } })).rejects.toThrow(/takes no spec.endpoint/);
    await expect(sshVendor.createRuntimeDriver({ ...config, ssh: undefined })).rejects.toThrow(UnsupportedError);
    const runtime = await sshVendor.createRuntimeDriver(config);
    expect(runtime.vendor).toBe('ssh');
    await runtime.close();
  });

  it('observes an unknown key, and an id that is not an ssh host, as null', async () => {
    expect(await driver.servers.observe({ key: key('unknown') })).toBeNull();
    expect(await driver.servers.observe({ key: key('unknown'), externalId: 'srv-123' })).toBeNull();
  });

  it('adopts the host: verified, marked with its key, found by key, by id, and by key when the id is gone; deleted, only the marker goes', async () => {
    const k = key('adopt');
    writeFileSync(join(fx.runtimeDir, 'tenant-file'), 'the host is yours');
    const server = await driver.servers.create(k, desired('byo-1'));
    expect(server).toEqual({
      id: `ssh:${fx.target.user}@127.0.0.1:${fx.target.port}`, name: 'byo-1', clientToken: k, region: '', size: '', image: 'debian-12',
      status: 'running', ipv4: '127.0.0.1', ipv6: null,
    });
    const marker = JSON.parse(readFileSync(markerPath(), 'utf8')) as Record<string, string>;
    expect(marker).toMatchObject({ key: k, id: server.id, name: 'byo-1' });
    expect(marker['system']).toMatch(/^Linux /);

    expect((await driver.servers.observe({ key: k }))?.id).toBe(server.id);
    expect((await driver.servers.observe({ key: key('other'), externalId: server.id }))?.id).toBe(server.id);
    expect((await driver.servers.observe({ key: k, externalId: 'srv-gone' }))?.id).toBe(server.id);
    // Another key alone does not find it.
    expect(await driver.servers.observe({ key: key('other') })).toBeNull();

    // The same key again returns the first; nothing changes in place.
    expect((await driver.servers.create(k, desired('byo-1'))).id).toBe(server.id);
    expect(await driver.servers.update(server.id, desired('byo-1'))).toEqual(server);

    await driver.servers.delete(server.id);
    await driver.servers.delete(server.id);
    expect(existsSync(markerPath())).toBe(false);
    expect(readFileSync(join(fx.runtimeDir, 'tenant-file'), 'utf8')).toBe('the host is yours');
    expect(await driver.servers.observe({ key: k, externalId: server.id })).toBeNull();
    expect(await driver.servers.observe({ key: k })).toBeNull();
  });

  it('finds an adopted host by key although cairn lost its data dir: the marker on the host says who adopted it', async () => {
    const k = key('lost');
    const server = await driver.servers.create(k, desired('byo-lost'));
    // A fresh index (a new data dir): observe by id still finds it, create with the same key returns it.
    const fresh = new SshCloudDriver({ access: fx.access, hosts: new SshHosts(fx.access), index: RuntimeIndex.of(join(fx.dataDir, 'elsewhere')) });
    expect((await fresh.servers.observe({ key: k, externalId: server.id }))?.clientToken).toBe(k);
    expect((await fresh.servers.create(k, desired('byo-lost'))).id).toBe(server.id);
    await driver.servers.delete(server.id);
  });

  it('refuses to adopt one host under two keys: one Server per host', async () => {
    const first = await driver.servers.create(key('first'), desired('byo-first'));
    const error = await rejection(driver.servers.create(key('second'), desired('byo-second')));
    expect(error).toBeInstanceOf(VendorRejectedError);
    expect((error as VendorRejectedError).field).toBe('host');
    expect(error.message).toContain('is already adopted by another server');
    expect(error.message).toContain('"byo-first"');
    expect(error.message).toContain('one Server per host');
    expect(JSON.parse(readFileSync(markerPath(), 'utf8'))).toMatchObject({ name: 'byo-first' });
    await driver.servers.delete(first.id);
  });

  it('measures the host from /proc over SSH', async () => {
    const server = await driver.servers.create(key('metrics'), desired('byo-metrics'));
    const metrics = await driver.metrics(server.id);
    expect(metrics.simulated).toBe(false);
    for (const value of [metrics.cpuPercent, metrics.memoryPercent, metrics.diskPercent]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(100);
    }
    expect(metrics.series).toHaveLength(1);
    await driver.servers.delete(server.id);
  });

  it('reboots the host detached over SSH, and refuses to power it off or on', async () => {
    const flag = join(fx.runtimeDir, 'rebooted');
    // The machine the tests run on is never rebooted: the reboot command is replaced.
    const rebooting = new SshCloudDriver({ access: fx.access, hosts: new SshHosts(fx.access), index: RuntimeIndex.of(fx.dataDir), rebootScript: `echo "$PPID" > ${flag}` });
    const server = await rebooting.servers.create(key('power'), desired('byo-power'));
    for (const action of ['power_off', 'power_on'] as const) {
      const error = await rejection(rebooting.power(server.id, action));
      expect(error).toBeInstanceOf(VendorRejectedError);
      expect(error.message).toBe(POWER_REFUSED);
    }
    const started = Date.now();
    const answer = await rebooting.power(server.id, 'reboot');
    expect(answer).toMatchObject({ id: server.id, status: 'rebooting' });
    // Answered before the command ran (it waits a second, detached from the session).
    expect(existsSync(flag)).toBe(false);
    expect(await until(() => existsSync(flag))).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await rebooting.servers.delete(server.id);
  });

  it('reports a host it cannot reach in error with the reason, never as gone', async () => {
    const port = await closedPort();
    const quick = new SshConnections({ connectAttempts: 1 });
    const access = { connections: quick, identity: () => fx.access.identity(), pins: new MemoryHostKeyPins() };
    const unreachable = new SshCloudDriver({ access, hosts: new SshHosts(access), index: RuntimeIndex.of(fx.dataDir) });
    const id = `ssh:root@127.0.0.1:${port}`;
    const observed = await unreachable.servers.observe({ key: key('down'), externalId: id });
    expect(observed).toMatchObject({ id, status: 'error' });
    expect(observed?.message).toContain('connection refused');
    await quick.close();
  });

  it('connects through the outbound guard: a tenant\'s 127.0.0.1 or 169.254.169.254 is refused without CAIRN_ALLOW_PRIVATE_ENDPOINTS', async () => {
    const saved = process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'];
    process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = '';
    const guarded = new SshConnections({ connectAttempts: 1 });
    try {
      const access = { connections: guarded, identity: () => fx.access.identity(), pins: new MemoryHostKeyPins() };
      const driverUnderGuard = await sshVendor.createCloudDriver({ ...config, ssh: access });
      for (const [host, range] of [['127.0.0.1', 'loopback'], ['169.254.169.254', 'link-local (cloud metadata)']] as const) {
        const error = await rejection(driverUnderGuard.servers.create(key('guard'), { ...desired('byo-guard'), ssh: { host, port: fx.target.port, user: fx.target.user } }));
        expect(error).toBeInstanceOf(VendorRejectedError);
        expect(error.message).toContain(`it is a ${range} address`);
      }
      expect(guarded.connectsMade).toBe(0);
      expect(existsSync(markerPath())).toBe(false);
    } finally {
      process.env['CAIRN_ALLOW_PRIVATE_ENDPOINTS'] = saved;
      await guarded.close();
    }
  });
});
