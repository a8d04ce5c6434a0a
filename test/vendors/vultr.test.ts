/**
 * @module The vultr driver against a stateful double of Vultr's API whose every request and
 * answer is checked against Vultr's own document: the shared driver contract, a create whose
 * answer was lost found again by its tag (never made twice), images resolved to an `os_id`,
 * lists read across cursor pages, refused tokens and plans said plainly (before anything is
 * sent), 30% faults absorbed, and a 429 storm kept within the budget.
 */
import { describe, expect, it } from 'vitest';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { vultrVendor } from '../../src/drivers/vultr/index.js';
import { keyFromTags, tagForKey } from '../../src/drivers/vultr/key-tag.js';
import { osSlug, readStatus } from '../../src/drivers/vultr/wire-format.js';
import { startVultrDouble, type VultrDoubleOptions } from '../doubles/vultr.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';

const { config, double } = vendorTestSetup('vultr', 'Vultr', (options: VultrDoubleOptions) => startVultrDouble(options));

runCloudDriverContract('vultr', async () => {
  const d = await double();
  return { driver: await vultrVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('vultr driver', () => {
  const desired = { name: 'web-1', region: 'fra', size: 'vc2-1c-1gb', image: 'debian-12' };

  it('tags what it creates with its key, and a create whose answer was lost is found again by that tag, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await vultrVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', { ...desired, image: '2136' })).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await vultrVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.instances()).toEqual([expect.objectContaining({ id: found.id, label: 'web-1', osId: 2136, tags: ['cairn-key:cairn-lost-answer-0', 'managed-by:cairn'] })]);
    expect(found.clientToken).toBe('cairn-lost-answer-0');
    // Looked for in the list itself: the list's `tag` filter is deprecated in Vultr's document.
    expect(new Set(d.calls.filter((c) => c.operationId === 'list-instances').map((c) => c.path))).toEqual(new Set(['/v2/instances?per_page=500']));
    expect(d.calls.filter((c) => c.operationId === 'create-instance')).toHaveLength(1);
  });

  it('reads the key back from tags, and folds status and power_status into one status', () => {
    expect(tagForKey('cairn-0b7c-1')).toBe('cairn-key:cairn-0b7c-1');
    expect(keyFromTags(['web', 'cairn-key:cairn-0b7c-1'])).toBe('cairn-0b7c-1');
    expect(keyFromTags(['web'])).toBeUndefined();
    expect(osSlug('Debian 12 x64 (bookworm)')).toBe('debian-12-x64');
    expect(readStatus('pending', 'running')).toBe('provisioning');
    expect(readStatus('resizing', 'running')).toBe('provisioning');
    expect(readStatus('active', 'running')).toBe('running');
    expect(readStatus('active', 'stopped')).toBe('stopped');
    expect(readStatus('suspended', 'stopped')).toBe('stopped');
    expect(readStatus('exploded', 'running')).toBe('error');
  });

  it('reads regions, plans and operating systems across cursor pages, once', async () => {
    const d = await double({ maxPerPage: 3 });
    const driver = await vultrVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions.map((r) => r.slug)).toEqual(['ams', 'fra', 'lhr', 'ewr', 'ord', 'sea', 'nrt', 'syd']);
    expect(regions.find((r) => r.slug === 'fra')).toEqual({ slug: 'fra', name: 'Frankfurt (DE)', available: true });
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'vhf-2c-4gb')).toEqual({ slug: 'vhf-2c-4gb', vcpus: 2, memoryMb: 4096, diskGb: 128, priceMonthly: 24, regions: ['fra', 'ewr'] });
    expect(d.calls.filter((c) => c.operationId === 'list-regions')).toHaveLength(3);
    expect(d.calls.filter((c) => c.operationId === 'list-plans')).toHaveLength(2);
    await driver.regions();
    expect(d.calls.filter((c) => c.operationId === 'list-regions'), 'the catalog is cached').toHaveLength(3);
    await driver.servers.create('cairn-os-0', { ...desired, image: 'ubuntu-24-04-lts' });
    await driver.servers.create('cairn-os-1', { ...desired, name: 'web-2', image: 'debian-12-x64' });
    expect(d.instances().map((i) => i.osId)).toEqual([2284, 2136]);
    expect(d.calls.filter((c) => c.operationId === 'list-os'), 'two pages, read once').toHaveLength(2);
  });

  it('says plainly when the token is refused, and refuses a plan, region or image Vultr lacks before sending anything', async () => {
    const d = await double();
    const wrong = await vultrVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-token' } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/401 Invalid API token\..*API token was refused; create an API key/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await vultrVendor.createCloudDriver(config(d.url));
    expect((await driver.testCredentials()).ok).toBe(true);
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'vc2-99c' })).rejects.toThrow(
      new VendorRejectedError('vultr: size "vc2-99c" is not offered in fra; sizes there: vc2-1c-1gb, vc2-1c-2gb, vc2-2c-4gb, vc2-4c-8gb, vhf-1c-1gb, vhf-2c-4gb', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'mars' })).rejects.toThrow(/region "mars" is not offered; regions: ams, fra,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('vultr: image "windows-95" is not an operating system Vultr offers; images: debian-12-x64, debian-11-x64,') });
    expect(d.calls.filter((c) => c.operationId === 'create-instance'), 'nothing created for a plan, region or image that does not exist').toEqual([]);
    await expect(vultrVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/vultr needs credentials with a "token"/);
  });

  it('resizes a running instance in place by its plan, waiting out the resize; powers it off and on', async () => {
    const d = await double();
    const driver = await vultrVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'vc2-2c-4gb' });
    expect(resized).toMatchObject({ size: 'vc2-2c-4gb', status: 'running' });
    expect(d.calls.filter((c) => c.operationId === 'update-instance')).toHaveLength(1);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    await driver.servers.delete(created.id);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('sends the first-boot user data as Vultr (base64) takes it', async () => {
    const d = await double();
    const driver = await vultrVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.instances().map((s) => s.userData)).toEqual([USER_DATA, null]);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await vultrVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/bandwidth only/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(vultrVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'vultr',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((s) => s.label) };
  },
  driver: (url) => vultrVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'fra', size: 'vc2-1c-1gb', image: 'debian-12' },
});
