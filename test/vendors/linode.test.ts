/**
 * @module The linode driver against a stateful double of Linode's API whose every request and
 * answer is checked against Linode's own document: the shared driver contract, a create whose
 * answer was lost found again by its tag (through `X-Filter`, never made twice), names made
 * into valid labels, a fresh root password per create, user data arriving intact, lists read
 * across numbered pages, refused tokens, types, regions and images said plainly (before anything
 * is sent), Linode's error shape, 30% faults absorbed, and a 429 storm kept within the budget.
 */
import { describe, expect, it } from 'vitest';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { linodeImage } from '../../src/drivers/linode/cloud-driver.js';
import { linodeVendor, readError } from '../../src/drivers/linode/index.js';
import { keyFromTags, tagForKey } from '../../src/drivers/linode/key-tag.js';
import { isLinodeLabel, linodeLabel } from '../../src/drivers/linode/label.js';
import { imageName, readStatus } from '../../src/drivers/linode/wire-format.js';
import { startLinodeDouble, type LinodeDoubleOptions } from '../doubles/linode.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const { config, double } = vendorTestSetup('linode', 'Linode', (options: LinodeDoubleOptions) => startLinodeDouble(options));

runCloudDriverContract('linode', async () => {
  const d = await double();
  return { driver: await linodeVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('linode driver', () => {
  const desired = { name: 'web-1', region: 'eu-central', size: 'g6-nanode-1', image: 'debian-12' };
  /** A key as cairn makes them (`cairn-<uid>-<n>`), too long for a 50-character tag. */
  const longKey = 'cairn-0b7c5e2a-6f1d-4c1e-9a53-2d4f7b8e9c10-1';

  it('tags what it creates with its key, and a create whose answer was lost is found again by that tag, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await linodeVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create(longKey, desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await linodeVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create(longKey, desired);
    expect(d.linodes()).toEqual([expect.objectContaining({ id: Number(found.id), label: 'web-1', image: 'linode/debian12', tags: [tagForKey(longKey), 'managed-by:cairn'] })]);
    expect(found.clientToken).toBe(longKey);
    expect((await patient.servers.observe({ key: longKey }))?.id).toBe(found.id);
    expect(d.calls.filter((c) => c.operationId === 'post-linode-instance')).toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'get-linode-instances').length, 'each create looked for the tag first').toBeGreaterThanOrEqual(2);
  });

  it('keeps keys within Linode’s 50-character tags, digesting the long ones, and reads them back', () => {
    expect(tagForKey('cairn-abc-1')).toBe('cairn-key:cairn-abc-1');
    const digest = tagForKey(longKey);
    expect(digest).toMatch(/^cairn-key-h:[0-9a-f]{32}$/);
    expect(digest.length).toBeLessThanOrEqual(50);
    expect(tagForKey(`${longKey}x`)).not.toBe(digest);
    expect(keyFromTags(['web', digest], longKey)).toBe(longKey);
    expect(keyFromTags(['web', digest], 'cairn-other-1')).toBe(`sha256:${digest.slice('cairn-key-h:'.length)}`);
    expect(keyFromTags(['web', 'cairn-key:cairn-abc-1'])).toBe('cairn-abc-1');
    expect(keyFromTags(['web'])).toBeUndefined();
  });

  it('makes any name a valid Linode label, the same one every time', () => {
    for (const [name, label] of [['web-1', 'web-1'], ['web 1', 'web-1'], ['my--app__db..x', 'my-app_db.x'], ['1st', 'c-1st'], ['a', 'a00'], ['-x', 'c-x'], ['x'.repeat(80), 'x'.repeat(64)]] as const) {
      expect(linodeLabel(name)).toBe(label);
      expect(isLinodeLabel(linodeLabel(name)), name).toBe(true);
    }
    expect(isLinodeLabel('web--1')).toBe(false);
  });

  it('maps statuses, images and Linode’s error shape', () => {
    expect(readStatus('running')).toBe('running');
    expect(readStatus('offline')).toBe('stopped');
    expect(readStatus('stopped')).toBe('stopped');
    expect(readStatus('provisioning')).toBe('provisioning');
    expect(readStatus('resizing')).toBe('provisioning');
    expect(readStatus('migrating')).toBe('provisioning');
    expect(readStatus('booting')).toBe('starting');
    expect(readStatus('shutting_down')).toBe('stopping');
    expect(readStatus('rebooting')).toBe('rebooting');
    expect(readStatus('deleting')).toBe('deleting');
    expect(readStatus('exploded')).toBe('error');
    expect(linodeImage('debian-12')).toBe('linode/debian12');
    expect(linodeImage('ubuntu-24.04')).toBe('linode/ubuntu24.04');
    expect(linodeImage('private/1234')).toBe('private/1234');
    expect(imageName('linode/debian12')).toBe('debian-12');
    expect(() => linodeImage('windows')).toThrow(expect.objectContaining({ field: 'image' }) as Error);
    expect(readError({ errors: [{ reason: 'Label must be unique among your Linodes', field: 'label' }] })).toEqual({ message: 'label: Label must be unique among your Linodes', field: 'label' });
    expect(readError({ errors: [{ reason: 'Not found' }] })).toEqual({ message: 'Not found' });
    expect(readError({ message: 'other' })).toBeUndefined();
  });

  it('sends user data base64 in metadata.user_data, arriving intact; none when there is none; a fresh root password each time', async () => {
    const d = await double();
    const driver = await linodeVendor.createCloudDriver(config(d.url));
    const userData = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3Nza… ops@example"\nruncmd:\n  - echo "héllo ✓"\n';
    await driver.servers.create('cairn-ud-0', { ...desired, userData });
    await driver.servers.create('cairn-ud-1', { ...desired, name: 'web-2', userData: null });
    const [first, second] = d.linodes();
    expect(first?.userData).toBe(userData);
    expect(second?.userData).toBeNull();
    expect(first?.rootPassword).not.toBe(second?.rootPassword);
    expect(first?.rootPassword.length).toBeGreaterThanOrEqual(32);
  });

  it('reads regions and types across numbered pages, once; a region in outage is not available', async () => {
    const d = await double({ maxPerPage: 4 });
    const driver = await linodeVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions).toHaveLength(10);
    expect(regions.find((r) => r.slug === 'eu-central')).toEqual({ slug: 'eu-central', name: 'Frankfurt, DE', available: true });
    expect(regions.find((r) => r.slug === 'se-sto')?.available).toBe(false);
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'g6-standard-2')).toEqual({ slug: 'g6-standard-2', vcpus: 2, memoryMb: 4096, diskGb: 80, priceMonthly: 24, regions: regions.map((r) => r.slug) });
    expect(d.calls.filter((c) => c.operationId === 'get-regions').map((c) => c.path)).toEqual(['/v4/regions?page=1&page_size=500', '/v4/regions?page=2&page_size=500', '/v4/regions?page=3&page_size=500']);
    expect(d.calls.filter((c) => c.operationId === 'get-linode-types')).toHaveLength(2);
    await driver.sizes();
    expect(d.calls.filter((c) => c.operationId === 'get-regions'), 'the catalog is cached').toHaveLength(3);
  });

  it('says plainly when the token is refused, and refuses a type, region or image Linode lacks before sending anything', async () => {
    const d = await double();
    const wrong = await linodeVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-token' } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/401 Invalid Token.*token was refused; create a personal access token/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await linodeVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: expect.stringContaining('linode: the API token is accepted') });
    expect(d.calls.filter((c) => c.operationId === 'get-profile')).toHaveLength(2);
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'g6-huge-99' })).rejects.toThrow(
      new VendorRejectedError('linode: size "g6-huge-99" is not offered in eu-central; sizes there: g6-nanode-1, g6-standard-1, g6-standard-2, g6-standard-4, g6-dedicated-2, g7-highmem-1', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'se-sto' })).rejects.toThrow(/region "se-sto" is not offered; regions: us-east, us-central,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows' })).rejects.toMatchObject({ field: 'image' });
    expect(d.calls.filter((c) => c.operationId === 'post-linode-instance'), 'nothing created for a type, region or image that does not exist').toEqual([]);
    await expect(linodeVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/linode needs credentials with a "token"/);
  });

  it('passes on Linode’s own refusal with its reason and field', async () => {
    const d = await double();
    const driver = await linodeVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-dup-0', desired);
    await expect(driver.servers.create('cairn-dup-1', desired)).rejects.toMatchObject({ field: 'label', message: expect.stringContaining('label: Label must be unique among your Linodes') });
    expect(d.linodes()).toHaveLength(1);
  });

  it('resizes a Linode in place, waiting out the move; powers it off and on', async () => {
    const d = await double();
    const driver = await linodeVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'g6-standard-2' });
    expect(resized).toMatchObject({ size: 'g6-standard-2', status: 'running' });
    expect(d.calls.filter((c) => c.operationId === 'post-resize-linode-instance')).toHaveLength(1);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect(d.calls.filter((c) => /boot|shutdown|reboot/.test(c.operationId)).map((c) => c.operationId)).toEqual([
      'post-shutdown-linode-instance', 'post-reboot-linode-instance', 'post-shutdown-linode-instance', 'post-boot-linode-instance',
    ]);
    await driver.servers.delete(created.id);
    await driver.servers.delete(created.id);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await linodeVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/not its memory or disk use/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(linodeVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'linode',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.linodes().map((s) => s.label) };
  },
  driver: (url) => linodeVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'eu-central', size: 'g6-nanode-1', image: 'debian-12' },
});
