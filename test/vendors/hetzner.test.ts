/**
 * @module The hetzner driver against a stateful double of Hetzner Cloud's API whose every
 * request and answer is checked against Hetzner's own document: the shared driver contract,
 * a create whose answer was lost found again by its label (never made twice), refused tokens
 * and sizes said plainly, 30% faults absorbed, and a 429 storm kept within the budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CloudDriver, DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { hetznerVendor } from '../../src/drivers/hetzner/index.js';
import { generateMasterKey } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';
import { startHetznerDouble, type HetznerDouble } from '../doubles/hetzner.js';

const MASTER = generateMasterKey();
const TOKEN = 'hetzner-test-token';
const dataDir = mkdtempSync(join(tmpdir(), 'cairn-hetzner-'));
const doubles: HetznerDouble[] = [];

function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return {
    providerName: 'hetzner', spec: { vendor: 'hetzner', endpoint: url }, credentials: { token: TOKEN }, dataDir, requestTimeoutMs: 5_000,
    dataKeys: keyringDataKeys({ active: MASTER, keys: [MASTER] }), ...overrides,
  };
}

async function double(options: Parameters<typeof startHetznerDouble>[0] = {}): Promise<HetznerDouble> {
  const started = await startHetznerDouble(options);
  doubles.push(started);
  return started;
}

afterAll(async () => {
  for (const d of doubles) {
    expect(d.violations, 'requests or answers outside Hetzner’s document').toEqual([]);
    await d.stop();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

runCloudDriverContract('hetzner', async () => {
  const d = await double();
  return { driver: await hetznerVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('hetzner driver', () => {
  const desired = { name: 'web-1', region: 'fsn1', size: 'cx22', image: 'debian-12' };

  it('labels what it creates with its key, and a create whose answer was lost is found again, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await hetznerVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await hetznerVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.servers()).toEqual([expect.objectContaining({ id: Number(found.id), name: 'web-1', labels: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn' } })]);
    expect(found.clientToken).toBe('cairn-lost-answer-0');
  });

  it('says plainly when the token is refused, and when a size does not exist', async () => {
    const d = await double();
    const wrong = await hetznerVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-token' } }));
    const test = await wrong.testCredentials();
    expect(test).toEqual({ ok: false, message: expect.stringMatching(/401 unable to authenticate \(unauthorized\).*API token was refused/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await hetznerVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'cx99' })).rejects.toThrow(new VendorRejectedError('hetzner: size "cx99" is not offered in fsn1; sizes there: cx22, cx32, cx42, cpx11, cpx21, cpx31, cax11', { field: 'size' }));
    await expect(hetznerVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/needs credentials with a "token"/);
  });

  it('refuses to run databases and apps, saying why', async () => {
    await expect(hetznerVendor.createRuntimeDriver(config('http://127.0.0.1:1'))).rejects.toThrow(/no managed databases.*SSH/);
  });

  it('converges through 30% vendor faults: reads are sent again, a failed create is asked again under the same key', async () => {
    const d = await double();
    d.setFaultRatio(0.3, 7);
    const driver: CloudDriver = await hetznerVendor.createCloudDriver(config(d.url));
    expect((await driver.regions()).map((r) => r.slug)).toEqual(['fsn1', 'nbg1', 'hel1', 'ash', 'hil', 'sin']);
    for (let i = 0; i < 5; i++) {
      const key = `cairn-faults-${i}`;
      let created = false;
      for (let attempt = 0; attempt < 10 && !created; attempt++) {
        created = await driver.servers.create(key, { ...desired, name: `faults-${i}` }).then(() => true, (error: unknown) => {
          if (!(error instanceof VendorUnavailableError)) throw error;
          return false;
        });
      }
      expect(created).toBe(true);
    }
    expect(d.servers().map((s) => s.name).sort()).toEqual(['faults-0', 'faults-1', 'faults-2', 'faults-3', 'faults-4']);
    expect(d.calls.length, 'calls for 5 servers and the regions').toBeLessThan(60);
  });

  it('keeps to the budget once the vendor has said what is left: a burst of calls all land, none refused', async () => {
    const d = await double({ rateLimit: { limit: 5, windowMs: 1000 } });
    const driver = await hetznerVendor.createCloudDriver(config(d.url));
    expect(await driver.servers.observe({ key: 'cairn-storm-first' })).toBeNull();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => driver.servers.observe({ key: `cairn-storm-${i}` })));
    expect(results.every((r) => r === null)).toBe(true);
    expect(d.calls.filter((c) => c.status === 429), `of ${d.calls.length} calls`).toEqual([]);
  }, 30_000);

  it('waits out 429s when it had no word from the vendor yet: every call lands', async () => {
    const d = await double({ rateLimit: { limit: 5, windowMs: 1000 } });
    const driver = await hetznerVendor.createCloudDriver(config(d.url));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => driver.servers.observe({ key: `cairn-storm-${i}` })));
    expect(results.every((r) => r === null)).toBe(true);
    expect(d.calls.filter((c) => c.status === 200)).toHaveLength(10);
  }, 30_000);
});
