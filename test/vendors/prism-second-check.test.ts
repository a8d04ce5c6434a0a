/**
 * @module A second, independent check of the requests each driver sends (issue #12): Stoplight
 * Prism serves the vendor's published document as a proxy in front of the vendor's double and
 * validates every request with its own validator. A request Prism finds outside the document is
 * answered 422 and logged; the test expects none over a driver's whole round (credentials,
 * regions, sizes, a create with user data, observe by id and by key, power off, delete), after
 * showing that Prism does refuse a request that breaks the document.
 *
 * Not checked here, and why: Exoscale signs each request's path, which Prism's proxy rewrites
 * (the document's paths leave out the `/v2` of its base URL), so a signed request cannot pass
 * through it unchanged; Contabo's access token comes from its identity provider, whose token
 * endpoint is not in the API document, so Prism refuses it. Both stay checked by their doubles.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ServerDesired, Vendor, VendorCredentials } from '../../src/drivers/contract.js';
import { digitalOceanVendor } from '../../src/drivers/digitalocean/index.js';
import { hetznerVendor } from '../../src/drivers/hetzner/index.js';
import { ionosVendor } from '../../src/drivers/ionos/index.js';
import { leasewebVendor } from '../../src/drivers/leaseweb/index.js';
import { linodeVendor } from '../../src/drivers/linode/index.js';
import { scalewayVendor } from '../../src/drivers/scaleway/index.js';
import { vultrVendor } from '../../src/drivers/vultr/index.js';
import { generateMasterKey } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';
import { startDigitalOceanDouble } from '../doubles/digitalocean.js';
import { startHetznerDouble } from '../doubles/hetzner.js';
import { startIonosDouble } from '../doubles/ionos.js';
import { startLeasewebDouble } from '../doubles/leaseweb.js';
import { linodeDocumentAsMeant, startLinodeDouble } from '../doubles/linode.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../doubles/scaleway.js';
import { startVultrDouble } from '../doubles/vultr.js';
import { startPrismProxy } from '../support/prism-proxy.js';
import { loadVendorDocument, vendorDocument, type VendorDouble } from '../support/vendor-double.js';

const TOKEN = 'prism-check-token';
const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';
const scratch = mkdtempSync(join(tmpdir(), 'cairn-prism-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface PrismCase {
  vendor: Vendor;
  /** The document Prism serves. */
  document: () => Promise<string>;
  start(token: string): Promise<VendorDouble>;
  /** Where Prism forwards to, from the double's URL; and the driver's endpoint, from Prism's. */
  upstream(doubleUrl: string): string;
  endpoint(prismUrl: string): string;
  credentials: VendorCredentials;
  auth: Record<string, string>;
  desired: ServerDesired;
  /** A create the document forbids, below the driver's endpoint. */
  badCreate: { path: string; body: unknown };
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const strip = (suffix: string) => (url: string): string => (url.endsWith(suffix) ? url.slice(0, -suffix.length) : url);

const CASES: PrismCase[] = [
  {
    vendor: hetznerVendor, document: () => Promise.resolve(vendorDocument('hetzner', 'hcloud.json')), start: (token) => startHetznerDouble({ token }),
    upstream: (url) => url, endpoint: (url) => url, credentials: { token: TOKEN }, auth: bearer,
    desired: { name: 'web-1', region: 'fsn1', size: 'cx22', image: 'debian-12', userData: USER_DATA },
    badCreate: { path: '/servers', body: { name: 42, image: 'debian-12' } },
  },
  {
    vendor: digitalOceanVendor, document: () => Promise.resolve(vendorDocument('digitalocean', 'specification', 'droplets.v2.yaml')),
    start: (token) => startDigitalOceanDouble({ token }), upstream: strip('/v2'), endpoint: (url) => `${url}/v2`, credentials: { token: TOKEN }, auth: bearer,
    desired: { name: 'web-1', region: 'fra1', size: 's-1vcpu-1gb', image: 'debian-12-x64', userData: USER_DATA },
    badCreate: { path: '/droplets', body: { name: 42, region: 'fra1' } },
  },
  {
    vendor: vultrVendor, document: () => Promise.resolve(vendorDocument('vultr', 'openapi.json')), start: (token) => startVultrDouble({ token }),
    upstream: (url) => url, endpoint: (url) => url, credentials: { token: TOKEN }, auth: bearer,
    desired: { name: 'web-1', region: 'fra', size: 'vc2-1c-1gb', image: 'debian-12', userData: USER_DATA },
    badCreate: { path: '/instances', body: { region: 7, plan: ['vc2-1c-1gb'] } },
  },
  {
    vendor: linodeVendor,
    // Linode's document read as its API behaves (see linodeDocumentAsMeant): read literally, no create could name a region.
    document: async () => {
      const document = structuredClone(await loadVendorDocument(vendorDocument('linode', 'openapi.yaml')));
      linodeDocumentAsMeant(document);
      const file = join(scratch, 'linode.json');
      writeFileSync(file, JSON.stringify(document));
      return file;
    },
    start: (token) => startLinodeDouble({ token }), upstream: strip('/v4'), endpoint: (url) => `${url}/v4`, credentials: { token: TOKEN }, auth: bearer,
    desired: { name: 'web-1', region: 'eu-central', size: 'g6-nanode-1', image: 'debian-12', userData: USER_DATA },
    badCreate: { path: '/linode/instances', body: { region: 7, type: ['g6-nanode-1'], label: 'web-1' } },
  },
  {
    vendor: scalewayVendor, document: () => Promise.resolve(vendorDocument('scaleway', 'scaleway.instance.v1.Api.yml')), start: (token) => startScalewayDouble({ token }),
    upstream: (url) => url, endpoint: (url) => url, credentials: { secret_key: TOKEN, project_id: SCALEWAY_TEST_PROJECT }, auth: { 'x-auth-token': TOKEN },
    desired: { name: 'web-1', region: 'fr-par-1', size: 'DEV1-S', image: 'debian-12', userData: USER_DATA },
    badCreate: { path: '/instance/v1/zones/fr-par-1/servers', body: { name: 42, commercial_type: ['DEV1-S'], project: SCALEWAY_TEST_PROJECT } },
  },
  {
    vendor: ionosVendor,
    // IONOS gives its `Location` header the "pattern" `https://[apiBaseUri]/requests/[requestId]/status`, a
    // placeholder no URL matches read as a regular expression; Prism gets the document without it.
    document: () => {
      const text = readFileSync(vendorDocument('ionos', 'cloudapi-v6.openapi.yaml'), 'utf8');
      const file = join(scratch, 'ionos.yaml');
      writeFileSync(file, text.replaceAll(/^\s+pattern: https:\/\/\[apiBaseUri\]\/requests\/\[requestId\]\/status\n/gm, ''));
      return Promise.resolve(file);
    },
    start: (token) => startIonosDouble({ token }),
    upstream: (url) => url, endpoint: (url) => url, credentials: { token: TOKEN }, auth: bearer,
    desired: { name: 'web-1', region: 'de/fra', size: 'e-1c-2gb', image: 'debian-12', userData: USER_DATA },
    badCreate: { path: '/datacenters/0b7c5e2a-6f1d-4c1e-9a53-2d4f7b8e9c10/servers', body: { properties: { name: 42, cores: 1, ram: 1024 } } },
  },
  {
    vendor: leasewebVendor, document: () => Promise.resolve(vendorDocument('leaseweb', 'publiccloud.openapi.yaml')), start: (token) => startLeasewebDouble({ token }),
    upstream: (url) => url, endpoint: (url) => url, credentials: { token: TOKEN }, auth: { 'x-lsw-auth': TOKEN },
    desired: { name: 'web-1', region: 'eu-west-3', size: 'lsw.m3.large', image: 'debian-12', userData: USER_DATA },
    badCreate: { path: '/instances', body: { region: 7, type: ['lsw.m3.large'], imageId: 'DEBIAN_12_64BIT', contractType: 'HOURLY', contractTerm: 0, billingFrequency: 1, rootDiskStorageType: 'CENTRAL' } },
  },
];

const master = generateMasterKey();

describe.each(CASES.map((c) => ({ ...c, id: c.vendor.id })))('Prism, serving $id’s document', (c) => {
  it('refuses a request that breaks the document, and finds none in a whole round of the driver', async () => {
    const double = await c.start(TOKEN);
    const prism = await startPrismProxy(await c.document(), c.upstream(double.url));
    try {
      const endpoint = c.endpoint(prism.url);
      const refused = await fetch(`${endpoint}${c.badCreate.path}`, { method: 'POST', headers: { ...c.auth, 'content-type': 'application/json' }, body: JSON.stringify(c.badCreate.body) });
      expect(refused.status, 'Prism checks requests').toBe(422);
      await refused.text();
      await vi.waitFor(() => expect(prism.requestViolations().length, 'Prism logs the refusal').toBeGreaterThan(0), { timeout: 5_000 });
      const control = prism.requestViolations().length;

      const driver = await c.vendor.createCloudDriver({
        providerName: c.vendor.id, spec: { vendor: c.vendor.id, endpoint }, credentials: c.credentials, dataDir: scratch, requestTimeoutMs: 10_000,
        dataKeys: keyringDataKeys({ active: master, keys: [master] }),
      });
      expect((await driver.testCredentials()).ok).toBe(true);
      expect((await driver.regions()).length).toBeGreaterThan(0);
      expect((await driver.sizes()).length).toBeGreaterThan(0);
      const key = `cairn-prism-${c.vendor.id}-0`;
      const created = await driver.servers.create(key, c.desired);
      expect((await driver.servers.observe({ key, externalId: created.id }))?.id).toBe(created.id);
      expect((await driver.servers.observe({ key }))?.id).toBe(created.id);
      await waitSettled(async () => (await driver.servers.observe({ key, externalId: created.id }))?.status);
      await driver.power(created.id, 'power_off');
      await driver.servers.delete(created.id);
      await driver.close();

      await new Promise((resolve) => setTimeout(resolve, 300)); // Prism logs after it answers
      expect(prism.requestViolations().slice(control), 'requests Prism found outside the document').toEqual([]);
      expect(double.violations.filter((v) => !v.includes('request breaks the document')), 'answers outside the document').toEqual([]);
    } finally {
      await prism.stop();
      await double.stop();
    }
  }, 180_000);
});

/** Until the server is running or stopped (a create may still be under way). */
async function waitSettled(status: () => Promise<string | undefined>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = await status();
    if (now === 'running' || now === 'stopped') return;
    if (Date.now() > deadline) throw new Error(`the server did not settle (status ${now ?? 'gone'})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
