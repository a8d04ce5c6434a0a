/**
 * @module The pool gives a provider's drivers the tenant's SSH access: made once per tenant on
 * first need, in the config every driver of the provider is built with, and a cloud driver whose
 * vendor reports no metrics is given metrics over SSH; a pool without SSH access leaves the
 * vendor's own answer. Vultr stands for a vendor without metrics (no call reaches it here).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredResource } from '../model/resource.js';
import type { SshAccess } from '../ssh/access.js';
import { Store } from '../store/store.js';
import { DriverPool } from './driver-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-driver-pool-'));
const store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
const env = { VULTR_API_KEY: 'pool-test-key' };
const provider = store.resources.create('default', 'api', {
  apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'vultr' },
  spec: { vendor: 'vultr', endpoint: 'http://127.0.0.1:9', credentialsRef: { env: 'VULTR_API_KEY' } },
}) as StoredResource<'Provider'>;

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DriverPool and SSH', () => {
  it('builds every driver of a provider with the tenant’s SSH access, made once, and reads metrics over SSH for a vendor without them', async () => {
    const access = { pins: {} } as unknown as SshAccess;
    const asked: string[] = [];
    let closed = 0;
    const pool = new DriverPool({
      dataDir: dir, requestTimeoutMs: 1_000, secrets: store.secrets, dataKeys: store.secrets, env,
      ssh: { forTenant: (tenant) => (asked.push(tenant), Promise.resolve(access)), close: () => (closed++, Promise.resolve()) },
    });
    const cloud = await pool.cloudFor(provider);
    await pool.runtimeFor(provider);
    expect(await pool.sshAccessFor(provider)).toBe(access);
    expect(asked).toEqual([provider.tenant]);
    expect(cloud.metricsUnsupported).toBeUndefined();
    await pool.close();
    expect(closed).toBe(1);
  });

  it('leaves a vendor without metrics saying why when the pool has no SSH access', async () => {
    const pool = new DriverPool({ dataDir: dir, requestTimeoutMs: 1_000, secrets: store.secrets, dataKeys: store.secrets, env });
    try {
      expect((await pool.cloudFor(provider)).metricsUnsupported).toMatch(/bandwidth only/);
      expect(await pool.sshAccessFor(provider)).toBeUndefined();
    } finally {
      await pool.close();
    }
  });
});
