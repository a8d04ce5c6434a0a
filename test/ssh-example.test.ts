/**
 * @module examples/ssh: its manifests load as one valid set (a Provider of vendor ssh, a Server
 * on an existing host, a Database and an App on it), the Server names what its vendor takes,
 * and its Server half converges against a real sshd on loopback (the example's host and port
 * rewritten to it): adopted and running, measured from /proc, power off refused with the reason,
 * forgotten on delete. The whole example, Database and App included, is applied through the CLI
 * in test/ssh-apply.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../src/model/generated/kinds.js';
import { loadManifestPaths } from '../src/model/manifest-loader.js';
import { serverFieldIssues } from '../src/model/server-vendor-fields.js';
import { VendorRejectedError } from '../src/drivers/errors.js';
import { POWER_REFUSED } from '../src/drivers/ssh/cloud-driver.js';
import { sshVendor } from '../src/drivers/ssh/index.js';
import type { CloudDriver } from '../src/drivers/contract.js';
import { REPO_ROOT } from './support/cairn-process.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'ssh');

describe('examples/ssh', () => {
  it('loads as one valid set: a Provider of vendor ssh, a Server on a host, a Database and an App on it', async () => {
    const loaded = await loadManifestPaths([EXAMPLE]);
    expect(loaded.errors).toEqual([]);
    const byKind = Object.fromEntries(loaded.manifests.map((m) => [m.manifest.kind, m.manifest]));
    expect(Object.keys(byKind).sort()).toEqual(['App', 'Database', 'Provider', 'Server']);
    expect(byKind['Provider']?.spec).toEqual({ vendor: 'ssh' });
    const server = byKind['Server']?.spec as ServerSpec;
    expect(server).toMatchObject({ provider: 'byo', host: '203.0.113.10', port: 22, user: 'root' });
    expect(serverFieldIssues('ssh', 'byo', server)).toEqual([]);
    expect(byKind['Database']?.spec).toMatchObject({ server: 'box-1' });
    expect(byKind['App']?.spec).toMatchObject({ server: 'box-1', databases: ['hello-db'] });
  });
});

describe('examples/ssh: its Server against a loopback sshd', () => {
  let fx: SshRuntimeFixture;
  let driver: CloudDriver;
  let spec: ServerSpec;

  beforeAll(async () => {
    fx = await startSshRuntimeFixture();
    const loaded = await loadManifestPaths([join(EXAMPLE, 'server.yaml')]);
    // The example's host and port, rewritten to the test's sshd (and the user running the tests).
    spec = { ...(loaded.manifests[0]?.manifest.spec as ServerSpec), host: fx.target.host, port: fx.target.port, user: fx.target.user };
    driver = await sshVendor.createCloudDriver({ providerName: 'byo', spec: { vendor: 'ssh' }, credentials: undefined, dataDir: fx.dataDir, requestTimeoutMs: 10_000, dataKeys: fx.options.dataKeys, ssh: fx.access });
  });

  afterAll(async () => {
    await driver?.close();
    await fx?.cleanup();
  });

  it('adopts the host, measures it, refuses to power it off, and forgets it on delete', async () => {
    const ssh = { host: spec.host ?? '', port: spec.port ?? 22, user: spec.user ?? 'root' };
    const server = await driver.servers.create('example-box-1', { name: 'box-1', region: '', size: '', image: 'debian-12', ssh });
    expect(server).toMatchObject({ id: `ssh:${ssh.user}@${ssh.host}:${ssh.port}`, status: 'running', ipv4: '127.0.0.1' });
    const metrics = await driver.metrics(server.id);
    expect(metrics.memoryPercent).toBeGreaterThan(0);
    const refused = await driver.power(server.id, 'power_off').then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(VendorRejectedError);
    expect((refused as Error).message).toBe(POWER_REFUSED);
    await driver.servers.delete(server.id);
    expect(await driver.servers.observe({ key: 'example-box-1', externalId: server.id })).toBeNull();
  });
});
