/**
 * @module The promise of more than 40 regions (issue #12): every cloud vendor cairn drives lists
 * its regions through its driver, from its double of the vendor's API, and together they pass
 * 40. Each vendor's own tests show its list is read from the vendor's endpoints.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/drivers/contract.js';
import { getVendor } from '../../src/drivers/registry.js';
import { generateMasterKey } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';
import { startContaboDouble } from '../doubles/contabo.js';
import { startDigitalOceanDouble } from '../doubles/digitalocean.js';
import { startExoscaleDouble } from '../doubles/exoscale.js';
import { startHetznerDouble } from '../doubles/hetzner.js';
import { startIonosDouble } from '../doubles/ionos.js';
import { startLeasewebDouble } from '../doubles/leaseweb.js';
import { startLinodeDouble } from '../doubles/linode.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../doubles/scaleway.js';
import { startVultrDouble } from '../doubles/vultr.js';
import type { VendorDouble } from '../support/vendor-double.js';

const TOKEN = 'regions-token';
const SECRET = 'regions-secret';
const VENDORS: Array<{ id: string; start: () => Promise<VendorDouble>; credentials: VendorCredentials }> = [
  { id: 'hetzner', start: () => startHetznerDouble({ token: TOKEN }), credentials: { token: TOKEN } },
  { id: 'digitalocean', start: () => startDigitalOceanDouble({ token: TOKEN }), credentials: { token: TOKEN } },
  { id: 'vultr', start: () => startVultrDouble({ token: TOKEN }), credentials: { token: TOKEN } },
  { id: 'linode', start: () => startLinodeDouble({ token: TOKEN }), credentials: { token: TOKEN } },
  { id: 'scaleway', start: () => startScalewayDouble({ token: TOKEN }), credentials: { secret_key: TOKEN, project_id: SCALEWAY_TEST_PROJECT } },
  { id: 'exoscale', start: () => startExoscaleDouble({ token: TOKEN, secret: SECRET }), credentials: { api_key: TOKEN, api_secret: SECRET } },
  { id: 'ionos', start: () => startIonosDouble({ token: TOKEN }), credentials: { token: TOKEN } },
  {
    id: 'contabo', start: () => startContaboDouble({ token: TOKEN }),
    credentials: { client_id: 'cairn-client', client_secret: TOKEN, api_user: 'ops@example.com', api_password: 'api-password' },
  },
  { id: 'leaseweb', start: () => startLeasewebDouble({ token: TOKEN }), credentials: { token: TOKEN } },
];

const dataDir = mkdtempSync(join(tmpdir(), 'cairn-regions-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const master = generateMasterKey();

describe('the regions of the nine cloud vendors', () => {
  it('are listed by each driver from its vendor’s endpoints, and number more than 40 in all', async () => {
    const counts: Record<string, number> = {};
    for (const v of VENDORS) {
      const double = await v.start();
      try {
        const driver = await getVendor(v.id).createCloudDriver({
          providerName: v.id, spec: { vendor: v.id, endpoint: double.url }, credentials: v.credentials, dataDir, requestTimeoutMs: 10_000,
          dataKeys: keyringDataKeys({ active: master, keys: [master] }),
        });
        const regions = await driver.regions();
        await driver.close();
        expect(new Set(regions.map((r) => r.slug)).size, `${v.id}: distinct slugs`).toBe(regions.length);
        counts[v.id] = regions.length;
        expect(double.violations, `${v.id}: requests or answers outside its document`).toEqual([]);
      } finally {
        await double.stop();
      }
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(`regions by vendor: ${JSON.stringify(counts)}; total ${total}`);
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
    expect(total).toBeGreaterThan(40);
  }, 120_000);
});
