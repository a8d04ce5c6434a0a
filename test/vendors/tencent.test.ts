/**
 * @module The tencent driver (Tencent's official SDK, unmodified) against a stateful double of
 * Tencent Cloud's API 3.0 that recomputes every TC3 signature and checks every request and
 * answer against CVM's api.json: the shared driver contract, a create whose answer was lost
 * found by its tag and deduplicated by its ClientToken (never made twice), zones, instance types
 * and images read across Offset/Limit pages, refused keys and unknown placements said plainly
 * (before anything is sent), resize through stop/ResetInstancesType/start, user data arriving
 * intact, the outbound guard refusing loopback, the validator able to refuse, 30% faults absorbed
 * and a throttling storm kept within the budget.
 */
import { describe, expect, it, vi } from 'vitest';
import { AbstractClient } from 'tencentcloud-sdk-nodejs-common';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { tencentError } from '../../src/drivers/tencent/errors.js';
import { tencentVendor } from '../../src/drivers/tencent/index.js';
import { externalIdOf, imageMatches, parseExternalId, readStatus } from '../../src/drivers/tencent/wire-format.js';
import { CVM_DOCUMENT, startTencentDouble, TENCENT_TEST_SECRET_ID, type TencentDoubleOptions } from '../doubles/tencent/index.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';
import { TencentApiValidator } from '../support/tencent-api-validator.js';
import { expectSpentKeyRefused } from '../support/spent-key-case.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';

const setup = vendorTestSetup('tencent', 'Tencent Cloud', (options: TencentDoubleOptions) => startTencentDouble(options));
const { double, token } = setup;

/** A config for the double at `url`, with the test's SecretId and SecretKey. */
function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(url, { credentials: { secret_id: TENCENT_TEST_SECRET_ID, secret_key: token }, ...overrides });
}

runCloudDriverContract('tencent', async () => {
  const d = await double({ actionMs: 50 });
  return { driver: await tencentVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('tencent driver', () => {
  const desired = { name: 'web-1', region: 'ap-guangzhou-3', size: 'S5.SMALL1', image: 'debian-12' };

  it('tags what it creates and sends its key as ClientToken: a create whose answer was lost is found again, not made twice', async () => {
    const d = await double({ slowAnswers: { operationIds: ['RunInstances'], ms: 400 } });
    const impatient = await tencentVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await tencentVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.instances()).toEqual([expect.objectContaining({ name: 'web-1', zone: 'ap-guangzhou-3', imageId: 'img-487zeit5', tags: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn' } })]);
    expect(found).toMatchObject({ id: externalIdOf(d.instances()[0]!.id, 'ap-guangzhou'), clientToken: 'cairn-lost-answer-0', region: 'ap-guangzhou-3', size: 'S5.SMALL1' });
    // The impatient driver sent RunInstances again after each timeout: the ClientToken kept it to one instance.
    expect(d.calls.filter((c) => c.operationId === 'RunInstances').length).toBeGreaterThan(1);
  });

  it('makes one instance when two creates under one key race past the tag lookup (the ClientToken)', async () => {
    // Lookups answered late: both creates find no tag, whatever the machine's load, and both send RunInstances.
    const d = await double({ slowAnswers: { operationIds: ['DescribeInstances'], ms: 300 } });
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    const [a, b] = await Promise.all([driver.servers.create('cairn-race-0', desired), driver.servers.create('cairn-race-0', desired)]);
    expect(a.id).toBe(b.id);
    expect(d.calls.filter((c) => c.operationId === 'RunInstances')).toHaveLength(2);
    expect(d.instances()).toHaveLength(1);
  });

  it('says a key is spent when Tencent answers its ClientToken with an instance since terminated, and makes nothing', async () => {
    const d = await double({ actionMs: 20 });
    await expectSpentKeyRefused(await tencentVendor.createCloudDriver(config(d.url)), desired, { live: () => d.instances(), creates: () => d.calls.filter((c) => c.operationId === 'RunInstances').length });
  });

  it('reads ids, statuses and images the way Tencent writes them', () => {
    expect(parseExternalId('ins-ab12cd34@ap-guangzhou')).toEqual({ instanceId: 'ins-ab12cd34', region: 'ap-guangzhou' });
    expect(parseExternalId('gone-1234')).toBeUndefined();
    expect(readStatus('PENDING')).toBe('provisioning');
    expect(readStatus('STOPPED')).toBe('stopped');
    expect(readStatus('TERMINATING')).toBe('deleting');
    expect(readStatus('LAUNCH_FAILED')).toBe('error');
    expect(imageMatches('debian-12', 'Debian 12.4 64bit')).toBe(true);
    expect(imageMatches('debian-1', 'Debian 12.4 64bit')).toBe(false);
    const throttled = tencentError(Object.assign(new Error('too many'), { code: 'RequestLimitExceeded', requestId: 'r-1' }), 'tencent: x');
    expect(throttled).toBeInstanceOf(VendorUnavailableError);
    expect(throttled).toMatchObject({ status: 429, message: 'tencent: x: RequestLimitExceeded: too many (RequestId r-1)' });
    expect(tencentError(Object.assign(new Error('bad'), { code: 'InvalidInstanceType.NotSupported' }), 'tencent: x')).toMatchObject({ field: 'size', name: 'VendorRejectedError' });
  });

  it('reads zones, instance types and public images across Offset/Limit pages, once', async () => {
    const d = await double({ pageSize: 2 });
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions.map((r) => r.slug)).toEqual(['ap-guangzhou-3', 'ap-guangzhou-4', 'ap-guangzhou-2', 'ap-singapore-1', 'ap-singapore-2', 'eu-frankfurt-1']);
    expect(regions.find((r) => r.slug === 'ap-guangzhou-2')).toEqual({ slug: 'ap-guangzhou-2', name: 'Guangzhou Zone 2', available: false });
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'S5.LARGE8')).toEqual({ slug: 'S5.LARGE8', vcpus: 4, memoryMb: 8192, diskGb: 50, priceMonthly: 116.8, regions: ['ap-guangzhou-3', 'ap-singapore-1', 'eu-frankfurt-1'] });
    await driver.regions();
    expect(d.calls.filter((c) => c.operationId === 'DescribeRegions'), 'the catalog is read once').toHaveLength(1);
    await driver.servers.create('cairn-image-0', { ...desired, image: 'ubuntu-server-24-04' });
    await driver.servers.create('cairn-image-1', { ...desired, name: 'web-2', image: 'img-6pb6lrmy' });
    await driver.servers.create('cairn-image-2', { ...desired, name: 'web-3', image: 'centos-7' });
    expect(d.instances().map((i) => i.imageId)).toEqual(['img-mmytdhbn', 'img-6pb6lrmy', 'img-l8og963d']);
    expect(d.calls.filter((c) => c.operationId === 'DescribeImages'), 'three pages of two, read once').toHaveLength(3);
    // Three instances with the key filter matching one: the lookup by tag crossed no page; a list of all does.
    expect(await driver.servers.observe({ key: 'cairn-image-2' })).toMatchObject({ name: 'web-3' });
  });

  it('says plainly when the key is refused, and refuses a size, zone or image Tencent lacks before sending anything', async () => {
    const d = await double();
    const wrongKey = await tencentVendor.createCloudDriver(config(d.url, { credentials: { secret_id: TENCENT_TEST_SECRET_ID, secret_key: 'not-the-key' } }));
    expect(await wrongKey.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/AuthFailure\.SignatureFailure: .*SecretId\/SecretKey pair was refused; make an API key under CAM/) });
    await expect(wrongKey.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const wrongId = await tencentVendor.createCloudDriver(config(d.url, { credentials: { secret_id: 'AKIDnobody', secret_key: token } }));
    expect((await wrongId.testCredentials()).message).toMatch(/AuthFailure\.SecretIdNotFound/);
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: `tencent: the SecretId and SecretKey are accepted at ${d.url}/cvm` });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'S5.HUGE99' })).rejects.toThrow(
      new VendorRejectedError('tencent: size "S5.HUGE99" is not offered in ap-guangzhou-3; sizes there: S5.SMALL1, S5.SMALL2, S5.MEDIUM4, S5.LARGE8, SA2.MEDIUM4', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'ap-guangzhou-2' })).rejects.toMatchObject({ field: 'region', message: expect.stringContaining('region "ap-guangzhou-2" is not offered; regions: ap-guangzhou-3, ap-guangzhou-4, ap-singapore-1') });
    await expect(driver.servers.create('cairn-k-3', { ...desired, size: 'S5.LARGE8', region: 'ap-singapore-2' })).rejects.toMatchObject({ field: 'size' });
    await expect(driver.servers.create('cairn-k-4', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('tencent: image "windows-95" is not a public image in ap-guangzhou; images: debian-12-4-64bit, debian-11-7-64bit,') });
    expect(d.calls.filter((c) => c.operationId === 'RunInstances'), 'nothing sent for a size, zone or image that does not exist').toEqual([]);
    await expect(tencentVendor.createCloudDriver({ ...config(d.url), credentials: { secret_id: TENCENT_TEST_SECRET_ID } })).rejects.toThrow(/tencent needs credentials with "secret_id" and "secret_key"; "secret_key" \(the SecretKey\) is missing/);
  });

  it('resizes by stopping the instance, ResetInstancesType and starting it again; powers it off, on and reboots it; deletes until gone', async () => {
    const d = await double();
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'S5.MEDIUM4' });
    expect(resized).toMatchObject({ id: created.id, size: 'S5.MEDIUM4', status: 'running' });
    expect(d.calls.filter((c) => ['StopInstances', 'ResetInstancesType', 'StartInstances'].includes(c.operationId)).map((c) => c.operationId)).toEqual(['StopInstances', 'ResetInstancesType', 'StartInstances']);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopping');
    const stoppedResize = await driver.servers.update(created.id, { ...desired, size: 'S5.SMALL2' });
    expect(stoppedResize, 'a stopped instance stays stopped').toMatchObject({ size: 'S5.SMALL2', status: 'stopped' });
    expect((await driver.power(created.id, 'power_on')).status).toBe('starting');
    expect((await driver.power(created.id, 'reboot')).status).toBe('rebooting');
    await driver.servers.delete(created.id);
    expect(d.instances()).toEqual([]);
    await driver.servers.delete(created.id);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('sends the first-boot user data base64-encoded, as RunInstances takes it, and none when there is none', async () => {
    const d = await double();
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.instances().map((s) => s.userData)).toEqual([USER_DATA, null]);
  });

  it('ends a call Tencent keeps throttling (RequestLimitExceeded) within seconds, as a passing fault with Tencent\'s code', async () => {
    const d = await double({ rateLimit: { limit: 1, windowMs: 60_000 } });
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    expect((await driver.testCredentials()).ok).toBe(true);
    const started = Date.now();
    const throttled = await driver.regions().then(() => null, (error: unknown) => error);
    expect(throttled).toBeInstanceOf(VendorUnavailableError);
    expect(throttled).toMatchObject({ status: 429, message: expect.stringContaining('tencent: describe regions: RequestLimitExceeded: ') });
    expect(Date.now() - started, 'three waits of a second, then the reconciler takes over').toBeLessThan(6_000);
    expect(d.calls.filter((c) => c.status === 429)).toHaveLength(4);
  });

  it('connects through the outbound guard: a loopback endpoint is refused when private endpoints are closed, and nothing reaches the double', async () => {
    const d = await double();
    vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', '');
    try {
      const driver = await tencentVendor.createCloudDriver(config(d.url));
      await expect(driver.regions()).rejects.toThrow(/tencent: describe regions: no answer from Tencent Cloud: .*127\.0\.0\.1/);
      expect(d.calls).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("refuses what CVM's document forbids, both ways, and the double records it", async () => {
    const validator = new TencentApiValidator(CVM_DOCUMENT);
    expect(validator.request('RunInstances', { Placement: { Zone: 7 }, InstanceCount: 1.5, Bogus: true })).toEqual([
      'RunInstances request.Bogus: not a member of RunInstancesRequest',
      'RunInstances request.Placement.Zone: should be a string (string), got 7',
      'RunInstances request.InstanceCount: should be an integer (int64), got 1.5',
    ]);
    expect(validator.request('StartInstances', {})).toEqual(['StartInstances request.InstanceIds: required by StartInstancesRequest, missing']);
    expect(validator.response('DescribeRegions', { TotalCount: -1, RegionSet: [{ Region: 'ap-guangzhou', RegionName: 'Guangzhou' }], RequestId: 'r' })).toEqual([
      'DescribeRegions answer.TotalCount: should be a non-negative integer (uint64), got -1',
      'DescribeRegions answer.RegionSet[0].RegionState: required by RegionInfo, missing',
    ]);
    expect(validator.response('DescribeRegions', { Error: { Code: 'InternalError', Message: 'x' }, RequestId: 'r' })).toEqual([]);
    // Through the wire: the SDK itself sends a request the document forbids; the double refuses it as Tencent does.
    const d = await double();
    const client = new AbstractClient(`${d.url.slice('http://'.length)}/cvm`, '2017-03-12', { credential: { secretId: TENCENT_TEST_SECRET_ID, secretKey: token }, region: 'ap-guangzhou', profile: { httpProfile: { protocol: 'http://' } } });
    await expect(client.request('StartInstances', { InstanceIds: 'ins-ab12cd34' })).rejects.toMatchObject({ code: 'InvalidParameter', message: expect.stringContaining('InstanceIds: should be a list of string') });
    expect(d.violations.splice(0)).toEqual(['request StartInstances request.InstanceIds: should be a list of string, got "ins-ab12cd34"']);
  });

  it('refuses metrics from CVM, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await tencentVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/Tencent Cloud Observability/);
    await expect(driver.metrics('ins-ab12cd34@ap-guangzhou')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(tencentVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'tencent',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((i) => i.name) };
  },
  driver: (url) => tencentVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'ap-guangzhou-3', size: 'S5.SMALL1', image: 'debian-12' },
  // An observe by key looks through each of the double's three open regions.
  observeCalls: 3,
  // And reads the list of regions once (DescribeRegions).
  onceCalls: 1,
});
