import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VendorRejectedError } from '../../drivers/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { DriverPool, driverPoolFor } from '../../reconcile/driver-pool.js';
import { Store } from '../../store/store.js';
import { sshShellsFor } from './ssh-shells.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-ssh-shells-'));
const store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
// A pool made without SSH access (the store's pool gives every tenant's drivers theirs).
const drivers = new DriverPool({ dataDir: dir, requestTimeoutMs: 1_000, secrets: store.secrets, dataKeys: store.secrets });
const storePool = driverPoolFor(store, dir, 1_000);

afterAll(async () => {
  await drivers.close();
  await storePool.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sshShellsFor', () => {
  it('refuses, naming the provider, a server whose provider gives cairn no SSH access', async () => {
    const provider = store.resources.create('default', 'api', { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sim' }, spec: { vendor: 'sandbox' } }) as StoredResource<'Provider'>;
    const server = store.resources.create('default', 'api', { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'web-1' }, spec: { provider: 'sim', region: 'eu-1', size: 'small' } }) as StoredResource<'Server'>;
    expect(await drivers.sshAccessFor(provider)).toBeUndefined();
    expect((await storePool.sshAccessFor(provider))?.pins).toBeDefined();
    const shell = sshShellsFor(drivers).shellFor(server, provider, { cols: 80, rows: 24 });
    await expect(shell).rejects.toThrow(VendorRejectedError);
    await expect(shell).rejects.toThrow(/provider sim \(vendor sandbox\) gives cairn no SSH access to its servers, so server web-1 has no terminal/);
  });
});
