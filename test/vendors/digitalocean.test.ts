/**
 * @module The digitalocean driver against a stateful double of DigitalOcean's API whose every
 * request and answer is checked against DigitalOcean's own document: the shared driver
 * contract, a create whose answer was lost found again by its tag (never made twice), keys that
 * do not fit a tag name tagged by digest, lists read across pages, refused tokens and sizes
 * said plainly (before anything is sent), 30% faults absorbed, and a 429 storm kept within the
 * budget.
 */
import { describe, expect, it } from 'vitest';
import { digitalOceanVendor } from '../../src/drivers/digitalocean/index.js';
import { isTagName, keyFromTags, tagForKey } from '../../src/drivers/digitalocean/key-tag.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { startDigitalOceanDouble, type DigitalOceanDoubleOptions } from '../doubles/digitalocean.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';

const { config, double } = vendorTestSetup('digitalocean', 'DigitalOcean', (options: DigitalOceanDoubleOptions) => startDigitalOceanDouble(options));

runCloudDriverContract('digitalocean', async () => {
  const d = await double();
  return { driver: await digitalOceanVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('digitalocean driver', () => {
  const desired = { name: 'web-1', region: 'fra1', size: 's-1vcpu-1gb', image: 'debian-12-x64' };

  it('tags what it creates with its key, and a create whose answer was lost is found again by that tag, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await digitalOceanVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await digitalOceanVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.droplets()).toEqual([expect.objectContaining({ id: Number(found.id), name: 'web-1', tags: ['cairn-key:cairn-lost-answer-0', 'managed-by:cairn'] })]);
    expect(found.clientToken).toBe('cairn-lost-answer-0');
    expect(d.calls.filter((c) => c.operationId === 'droplets_list').map((c) => c.path)).toContain('/v2/droplets?tag_name=cairn-key%3Acairn-lost-answer-0&per_page=2');
  });

  it('tags a key that is no valid tag name by its digest, and finds the droplet by it', async () => {
    const key = 'cairn key/with spaces.and.dots';
    expect(isTagName(`cairn-key:${key}`)).toBe(false);
    const tag = tagForKey(key);
    expect(tag).toMatch(/^cairn-key-sha256:[0-9a-f]{64}$/);
    expect(tagForKey('cairn-0b7c-1')).toBe('cairn-key:cairn-0b7c-1');
    expect(keyFromTags(['web', tag])).toBe(`sha256:${tag.slice('cairn-key-sha256:'.length)}`);
    const d = await double();
    const driver = await digitalOceanVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create(key, desired);
    expect(d.droplets()[0]?.tags).toEqual([tag, 'managed-by:cairn']);
    expect((await driver.servers.observe({ key }))?.id).toBe(created.id);
    expect((await driver.servers.create(key, desired)).id).toBe(created.id);
    expect(d.droplets()).toHaveLength(1);
  });

  it('reads regions and sizes across pages, leaving out retired sizes', async () => {
    const d = await double({ maxPerPage: 5 });
    const driver = await digitalOceanVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions.map((r) => r.slug)).toEqual(['nyc1', 'nyc2', 'nyc3', 'sfo1', 'sfo2', 'sfo3', 'tor1', 'atl1', 'ams3', 'lon1', 'fra1', 'blr1', 'sgp1', 'syd1']);
    expect(regions.find((r) => r.slug === 'nyc2')).toEqual({ slug: 'nyc2', name: 'New York 2', available: false });
    const sizes = await driver.sizes();
    expect(sizes.map((s) => s.slug)).not.toContain('s-1vcpu-512mb-10gb');
    expect(sizes.find((s) => s.slug === 's-2vcpu-4gb')).toMatchObject({ vcpus: 2, memoryMb: 4096, diskGb: 80, priceMonthly: 24 });
    expect(d.calls.filter((c) => c.operationId === 'regions_list')).toHaveLength(3);
    expect(d.calls.filter((c) => c.operationId === 'sizes_list')).toHaveLength(2);
    await driver.regions();
    expect(d.calls.filter((c) => c.operationId === 'regions_list'), 'the catalog is cached').toHaveLength(3);
  });

  it('says plainly when the token is refused, and refuses a size or region DigitalOcean lacks before sending anything', async () => {
    const d = await double();
    const wrong = await digitalOceanVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-token' } }));
    const test = await wrong.testCredentials();
    expect(test).toEqual({ ok: false, message: expect.stringMatching(/401 Unable to authenticate you \(Unauthorized\).*API token was refused/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await digitalOceanVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 's-99vcpu' })).rejects.toThrow(
      new VendorRejectedError('digitalocean: size "s-99vcpu" is not offered in fra1; sizes there: s-1vcpu-1gb, s-1vcpu-2gb, s-2vcpu-2gb, s-2vcpu-4gb, s-4vcpu-8gb, c-2, g-2vcpu-8gb', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'nyc2' })).rejects.toThrow(/region "nyc2" is not offered; regions: nyc1, nyc3,/);
    expect(d.calls.filter((c) => c.operationId === 'droplets_create'), 'nothing created for a size or region that does not exist').toEqual([]);
    await expect(digitalOceanVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/needs credentials with a "token"/);
  });

  it('resizes a running droplet off, resized, on again; and carries the vendor’s own message on a refused action', async () => {
    const d = await double();
    const driver = await digitalOceanVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 's-2vcpu-4gb' });
    expect(resized.size).toBe('s-2vcpu-4gb');
    const types = d.calls.filter((c) => c.operationId === 'dropletActions_post').length;
    expect(types, 'power_off, resize, power_on').toBe(3);
    await expect(driver.power(created.id, 'reboot')).rejects.toThrow(/422 Droplet already has a pending event\. \(unprocessable_entity\)/);
  });

  it('sends the first-boot user data as DigitalOcean takes it', async () => {
    const d = await double();
    const driver = await digitalOceanVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.droplets().map((s) => s.userData)).toEqual([USER_DATA, null]);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps on a droplet over SSH', async () => {
    const d = await double();
    const driver = await digitalOceanVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/agent/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(digitalOceanVendor, config('http://127.0.0.1:1'));
  });


});

describeVendorFaultCases({
  vendor: 'digitalocean',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.droplets().map((s) => s.name) };
  },
  driver: (url) => digitalOceanVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'fra1', size: 's-1vcpu-1gb', image: 'debian-12-x64' },
});
