/**
 * @module The leaseweb driver against its double (test/doubles/leaseweb.ts): the shared cloud
 * driver contract, then what is Leaseweb's own: the name and key carried in the reference (a long
 * key digested), a lost create answer found by it, user data arriving as the plain text Leaseweb
 * wants, regions and per-region types read across limit/offset pages, the API key in X-LSW-Auth
 * and its refusal said plainly, a type, region or image Leaseweb lacks refused before anything is
 * sent, a resize only upwards (a downgrade refused before sending), power actions, a terminated
 * instance observed as gone, Leaseweb's error shape, 30% faults absorbed, and a 429 storm kept
 * within the budget.
 */
import { describe, expect, it } from 'vitest';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { leasewebVendor, readError } from '../../src/drivers/leaseweb/index.js';
import { carriesKey, keyMark, readReference, referenceFor } from '../../src/drivers/leaseweb/reference.js';
import { imageName, leasewebImage, readStatus } from '../../src/drivers/leaseweb/wire-format.js';
import { startLeasewebDouble, type LeasewebDoubleOptions } from '../doubles/leaseweb.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const { config, double } = vendorTestSetup('leaseweb', 'Leaseweb', (options: LeasewebDoubleOptions) => startLeasewebDouble(options));

runCloudDriverContract('leaseweb', async () => {
  const d = await double();
  return { driver: await leasewebVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('leaseweb driver', () => {
  const desired = { name: 'web-1', region: 'eu-west-3', size: 'lsw.m3.large', image: 'debian-12' };
  /** A key as cairn makes them (`cairn-<uid>-<n>`) at incarnation 12: one character longer than a plain key mark takes. */
  const longKey = 'cairn-0b7c5e2a-6f1d-4c1e-9a53-2d4f7b8e9c10-12';

  it('writes name and key in the reference, and a create whose answer was lost is found again by it, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await leasewebVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create(longKey, desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await leasewebVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create(longKey, desired);
    expect(d.instances()).toEqual([
      expect.objectContaining({
        id: found.id, reference: referenceFor('web-1', longKey), imageId: 'DEBIAN_12_64BIT', type: 'lsw.m3.large', rootDiskSize: 50, rootDiskStorageType: 'CENTRAL',
        contract: { type: 'HOURLY', term: 0, billingFrequency: 1 },
      }),
    ]);
    expect(found).toMatchObject({ name: 'web-1', clientToken: longKey, image: 'debian-12' });
    expect((await patient.servers.observe({ key: longKey }))?.id).toBe(found.id);
    expect(d.calls.filter((c) => c.operationId === 'launchInstance')).toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'getInstanceList').length, 'each create looked for the key first').toBeGreaterThanOrEqual(2);
  });

  it('keeps key marks short, digesting long keys, and reads name and key back', () => {
    expect(keyMark('cairn-abc-1')).toBe('cairn-key:cairn-abc-1');
    const digest = keyMark(longKey);
    expect(digest).toMatch(/^cairn-key-h:[0-9a-f]{32}$/);
    expect(keyMark(`${longKey}x`)).not.toBe(digest);
    const reference = referenceFor('web-1', longKey);
    expect(reference.length).toBeLessThanOrEqual(128);
    expect(carriesKey(reference, longKey)).toBe(true);
    expect(carriesKey(reference, 'cairn-other-1')).toBe(false);
    expect(readReference(reference, longKey)).toEqual({ name: 'web-1', key: longKey });
    expect(readReference(reference)).toEqual({ name: 'web-1', key: `sha256:${digest.slice('cairn-key-h:'.length)}` });
    expect(readReference('my web 1 cairn-key:cairn-abc-1')).toEqual({ name: 'my web 1', key: 'cairn-abc-1' });
    expect(readReference('my webserver')).toEqual({ name: 'my webserver', key: undefined });
    expect(readReference(null)).toEqual({ name: '', key: undefined });
    expect(referenceFor('x'.repeat(100), 'k').startsWith(`${'x'.repeat(63)} `)).toBe(true);
  });

  it('maps states, images and Leaseweb’s error shape', () => {
    expect(readStatus('CREATING')).toBe('provisioning');
    expect(readStatus('STARTING')).toBe('starting');
    expect(readStatus('RUNNING')).toBe('running');
    expect(readStatus('STOPPING')).toBe('stopping');
    expect(readStatus('STOPPED')).toBe('stopped');
    expect(readStatus('DESTROYING')).toBe('deleting');
    expect(readStatus('FAILED')).toBe('error');
    expect(readStatus('UNKNOWN')).toBe('error');
    expect(leasewebImage('debian-12')).toBe('DEBIAN_12_64BIT');
    expect(leasewebImage('ubuntu-24.04')).toBe('UBUNTU_24_04_64BIT');
    expect(leasewebImage('UBUNTU_22_04_64BIT')).toBe('UBUNTU_22_04_64BIT');
    expect(leasewebImage('abcc1630-362f-48ba-832f-c496aff24121')).toBe('abcc1630-362f-48ba-832f-c496aff24121');
    expect(leasewebImage('windows')).toBeUndefined();
    expect(imageName('DEBIAN_12_64BIT')).toBe('debian-12');
    expect(imageName('UBUNTU_22_04_64BIT')).toBe('ubuntu-22.04');
    expect(imageName('abcc1630-362f-48ba-832f-c496aff24121')).toBe('abcc1630-362f-48ba-832f-c496aff24121');
    expect(readError({ correlationId: 'c-1', errorCode: '400', errorMessage: 'Bad request', errorDetails: { type: ['not eligible'] } })).toEqual({ message: 'Bad request; type: not eligible (correlation id c-1)', field: 'type' });
    expect(readError({ errorCode: '404', errorMessage: 'Resource not found' })).toEqual({ message: 'Resource not found' });
    expect(readError({ errors: [] })).toBeUndefined();
  });

  it('sends user data as plain text in userData (never sshKey beside it), arriving intact; none when there is none', async () => {
    const d = await double();
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    const userData = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3Nza… ops@example"\nruncmd:\n  - echo "héllo ✓"\n';
    await driver.servers.create('cairn-ud-0', { ...desired, userData });
    await driver.servers.create('cairn-ud-1', { ...desired, name: 'web-2', userData: null });
    const [first, second] = d.instances();
    expect(first?.userData).toBe(userData);
    expect(second?.userData).toBeNull();
  });

  it('reads regions and each region’s types across limit/offset pages, once; prices include the root disk', async () => {
    const d = await double({ maxPerPage: 3 });
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions).toHaveLength(8);
    expect(regions.find((r) => r.slug === 'eu-west-3')).toEqual({ slug: 'eu-west-3', name: 'Amsterdam', available: true });
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'lsw.m3.large')).toEqual({ slug: 'lsw.m3.large', vcpus: 2, memoryMb: 7168, diskGb: 50, priceMonthly: 33.44, regions: regions.map((r) => r.slug) });
    expect(sizes.find((s) => s.slug === 'lsw.r3.large')).toMatchObject({ memoryMb: 15_616, regions: ['eu-west-3', 'us-east-1'] });
    expect(sizes.find((s) => s.slug === 'lsw.m5a.4xlarge')).toMatchObject({ priceMonthly: 241.5, regions: ['eu-west-3'] });
    expect(d.calls.filter((c) => c.operationId === 'getRegionList').map((c) => c.path)).toEqual([
      '/publicCloud/v1/regions?limit=50&offset=0', '/publicCloud/v1/regions?limit=50&offset=3', '/publicCloud/v1/regions?limit=50&offset=6',
    ]);
    expect(d.calls.filter((c) => c.operationId === 'getInstanceTypeList' && c.path.includes('region=eu-west-3'))).toHaveLength(2);
    await driver.sizes();
    expect(d.calls.filter((c) => c.operationId === 'getRegionList'), 'the catalog is cached').toHaveLength(3);
  });

  it('sends the API key as X-LSW-Auth, says plainly when it is refused, and refuses a type, region or image Leaseweb lacks before sending anything', async () => {
    const d = await double();
    const wrong = await leasewebVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-key' } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/401 You are not authorized.*token was refused; create an API key in the Leaseweb Customer Portal/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: expect.stringContaining('leaseweb: the API token is accepted') });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'lsw.huge' })).rejects.toThrow(
      new VendorRejectedError('leaseweb: size "lsw.huge" is not offered in eu-west-3; sizes there: lsw.m3.large, lsw.m3.xlarge, lsw.c3.large, lsw.r3.large, lsw.m5a.4xlarge', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, size: 'lsw.m5a.4xlarge', region: 'eu-west-2' })).rejects.toMatchObject({ field: 'size' });
    await expect(driver.servers.create('cairn-k-3', { ...desired, region: 'mars-1' })).rejects.toThrow(/region "mars-1" is not offered; regions: eu-west-3, eu-central-1,/);
    await expect(driver.servers.create('cairn-k-4', { ...desired, image: 'windows' })).rejects.toMatchObject({ field: 'image' });
    expect(d.calls.filter((c) => c.operationId === 'launchInstance'), 'nothing launched for a type, region or image that does not exist').toEqual([]);
    await expect(leasewebVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/leaseweb needs credentials with a "token" \(a Leaseweb API key\)/);
  });

  it('passes on Leaseweb’s own refusal with its message and field', async () => {
    const d = await double();
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-img-0', { ...desired, image: 'ARCH_2024_64BIT' })).rejects.toMatchObject({ field: 'imageId', message: expect.stringContaining('400 Image ARCH_2024_64BIT does not exist') });
    expect(d.instances()).toHaveLength(0);
  });

  it('resizes upwards in place, refuses a downgrade before sending it, powers off and on, and a terminated instance is gone', async () => {
    const d = await double();
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'lsw.m3.xlarge' });
    expect(resized).toMatchObject({ size: 'lsw.m3.xlarge', status: 'running' });
    expect(d.calls.filter((c) => c.operationId === 'updateInstance')).toHaveLength(1);
    await expect(driver.servers.update(created.id, { ...desired, size: 'lsw.c3.large' })).rejects.toThrow(UnsupportedError);
    await expect(driver.servers.update(created.id, { ...desired, size: 'lsw.c3.large' })).rejects.toThrow(/only to the types it lists for it \(larger ones: lsw.m5a.4xlarge\).*replace the server/);
    expect(d.calls.filter((c) => c.operationId === 'updateInstance'), 'the downgrade was never sent').toHaveLength(1);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect(d.calls.filter((c) => /^(start|stop|reboot)Instance$/.test(c.operationId)).map((c) => c.operationId)).toEqual(['stopInstance', 'startInstance', 'rebootInstance']);
    await driver.servers.delete(created.id);
    await driver.servers.delete(created.id);
    expect(d.calls.filter((c) => c.operationId === 'terminateInstance')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(d.instances()[0]?.state).toBe('DESTROYED');
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
    await driver.servers.delete(created.id);
  });

  it('waits for an instance being created before terminating it (Leaseweb refuses that)', async () => {
    const d = await double({ actionMs: 300 });
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-early-0', desired);
    expect(created.status).toBe('provisioning');
    await driver.servers.delete(created.id);
    expect(d.calls.filter((c) => c.operationId === 'terminateInstance').map((c) => c.status)).toEqual([200]);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await leasewebVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/not its memory or disk use/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(leasewebVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'leaseweb',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((s) => readReference(s.reference).name) };
  },
  driver: (url) => leasewebVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'eu-west-3', size: 'lsw.m3.large', image: 'debian-12' },
});
