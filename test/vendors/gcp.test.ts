/**
 * @module The gcp driver through Google's own clients, unmodified, against a stateful double of
 * Google Cloud whose every request and answer is checked against Google's discovery document:
 * the shared driver contract, a create whose answer was lost found again by its label (and the
 * insert's requestId deduped by Google), zones and machine types read across pages, a key
 * refused at the token endpoint said plainly, a zone or machine type Compute Engine lacks refused
 * before anything is sent, user data arriving intact, the outbound guard refusing a private
 * endpoint (token request included) with nothing reaching the double, the validator able to
 * fail, 30% faults absorbed and a quota storm kept within the budget.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { readGoogleError, toCairnError } from '../../src/drivers/gcp/gcp-client.js';
import { gcpVendor } from '../../src/drivers/gcp/index.js';
import { readServiceAccountKey } from '../../src/drivers/gcp/service-account.js';
import { labelValueForKey, readStatus, requestIdForKey, sourceImage } from '../../src/drivers/gcp/wire-format.js';
import { startGcpDouble, testServiceAccountKey, type GcpDoubleOptions } from '../doubles/gcp/server.js';
import { DiscoveryValidator } from '../support/discovery-validator.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { vendorDocument } from '../support/vendor-double.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';
import { gaxios } from 'google-auth-library';
import { expectSpentKeyRefused } from '../support/spent-key-case.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\nruncmd:\n  - [sh, -c, "echo héllo > /etc/motd"]\n';

const setup = vendorTestSetup('gcp', 'Google Cloud', (options: GcpDoubleOptions) => startGcpDouble(options));
const { double } = setup;

/** A driver config for the double at `url`, with the test service-account key (its token_uri the double's). */
function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(url, { credentials: { serviceAccountKey: testServiceAccountKey(url) }, ...overrides });
}

runCloudDriverContract('gcp', async () => {
  const d = await double();
  return { driver: await gcpVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('gcp driver', () => {
  const desired = { name: 'web-1', region: 'europe-west1-b', size: 'e2-small', image: 'debian-12' };

  it('says a key is spent when Compute Engine answers its requestId with an insert whose instance was since deleted, and makes nothing', async () => {
    const d = await double();
    await expectSpentKeyRefused(await gcpVendor.createCloudDriver(config(d.url)), desired, { live: () => d.instances(), creates: () => d.calls.filter((c) => c.operationId === 'compute.instances.insert').length });
  });

  it('labels what it creates with its key, and a create whose answer was lost is found again by that label, not made twice', async () => {
    const d = await double({ slowAnswers: { operationIds: ['compute.instances.insert'], ms: 600 } });
    const impatient = await gcpVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 300 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const insertsBefore = d.calls.filter((c) => c.operationId === 'compute.instances.insert').length;
    expect(insertsBefore).toBeGreaterThan(0);
    const patient = await gcpVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(found).toMatchObject({ id: 'europe-west1-b/web-1', name: 'web-1', clientToken: 'cairn-lost-answer-0', region: 'europe-west1-b', size: 'e2-small', image: 'debian-12' });
    expect(d.instances()).toEqual([expect.objectContaining({ name: 'web-1', labels: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn' }, sourceImage: 'projects/debian-cloud/global/images/family/debian-12' })]);
    const inserts = d.calls.filter((c) => c.operationId === 'compute.instances.insert');
    expect(inserts.length, 'only the impatient driver inserted (sent again after each timeout); the patient one found the instance by label').toBe(insertsBefore);
    expect(new Set(inserts.map((c) => new URL(c.path, 'http://x').searchParams.get('requestId'))), 'every attempt under the one requestId derived from the key').toEqual(new Set([requestIdForKey('cairn-lost-answer-0')]));
    expect(d.calls.filter((c) => c.operationId === 'compute.instances.aggregatedList').map((c) => decodeURIComponent(c.path))).toContain(
      '/compute/v1/projects/cairn-double/aggregated/instances?filter=labels.cairn-key = "cairn-lost-answer-0"&maxResults=500&returnPartialSuccess=true',
    );
  });

  it('repeats an insert under the same requestId without a second instance (Google dedupes it)', async () => {
    const d = await double();
    const driver = await gcpVendor.createCloudDriver(config(d.url));
    const first = await driver.servers.create('cairn-request-id-0', desired);
    // The label is gone (someone edited it): the lookup finds nothing, the insert goes again under the same requestId.
    d.compute.instances.get('europe-west1-b/web-1')!.labels = {};
    d.compute.instances.get('europe-west1-b/web-1')!.metadata = [];
    const again = await driver.servers.create('cairn-request-id-0', desired);
    expect(again.name).toBe(first.name);
    expect(d.instances()).toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'compute.instances.insert')).toHaveLength(2);
  });

  it('reads key labels, statuses, request ids and images as Google has them', () => {
    expect(labelValueForKey('cairn-0b7c-1')).toBe('cairn-0b7c-1');
    expect(labelValueForKey('Cairn/With Capitals')).toMatch(/^h-[0-9a-f]{60}$/);
    expect(requestIdForKey('k')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdForKey('k')).toBe(requestIdForKey('k'));
    expect(requestIdForKey('k')).not.toBe(requestIdForKey('l'));
    expect(readStatus('STAGING')).toBe('provisioning');
    expect(readStatus('RUNNING')).toBe('running');
    expect(readStatus('STOPPING')).toBe('stopping');
    expect(readStatus('TERMINATED')).toBe('stopped');
    expect(readStatus('SUSPENDED')).toBe('stopped');
    expect(readStatus('EXPLODED')).toBe('error');
    expect(sourceImage('ubuntu-2404-lts-amd64')).toBe('projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64');
    expect(sourceImage('projects/my-project/global/images/golden')).toBe('projects/my-project/global/images/golden');
    expect(() => sourceImage('windows-95')).toThrow(/image "windows-95" is not a public image family/);
  });

  it('reads zones and machine types across pages, once', async () => {
    const d = await double({ maxPerPage: 3 });
    const driver = await gcpVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions.map((r) => r.slug)).toEqual(['europe-west1-b', 'europe-west1-c', 'europe-west1-d', 'europe-west4-a', 'us-central1-a', 'us-central1-b', 'us-east1-b', 'asia-northeast1-a']);
    expect(regions.find((r) => r.slug === 'us-east1-b')?.available, 'a zone that is DOWN').toBe(false);
    expect(regions.find((r) => r.slug === 'europe-west1-b')).toEqual({ slug: 'europe-west1-b', name: 'europe-west1-b (europe-west1)', available: true });
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'n2-standard-2')).toEqual({ slug: 'n2-standard-2', vcpus: 2, memoryMb: 8192, diskGb: 20, priceMonthly: 0, regions: ['europe-west1-b', 'europe-west1-c', 'us-central1-a'] });
    expect(d.calls.filter((c) => c.operationId === 'compute.zones.list')).toHaveLength(3);
    expect(d.calls.filter((c) => c.operationId === 'compute.machineTypes.aggregatedList').length).toBeGreaterThan(5);
    const before = d.calls.length;
    await driver.regions();
    await driver.sizes();
    expect(d.calls.length, 'the catalog is cached').toBe(before);
  });

  it('says plainly when the key is refused at the token endpoint, and refuses a zone or machine type Compute Engine lacks before sending anything', async () => {
    const d = await double();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const otherKey = testServiceAccountKey(d.url, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const wrong = await gcpVendor.createCloudDriver(config(d.url, { credentials: { serviceAccountKey: otherKey } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/400 invalid_grant: Invalid JWT Signature\..*the service-account key was refused; make a new key/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    expect(d.calls, 'nothing reached Compute Engine without a token').toEqual([]);
    const driver = await gcpVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: expect.stringContaining('can read project cairn-double') });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'c3-standard-4' })).rejects.toThrow(
      new VendorRejectedError('gcp: size "c3-standard-4" is not offered in europe-west1-b; sizes there: e2-micro, e2-small, e2-medium, e2-standard-2, n2-standard-2', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'us-east1-b' })).rejects.toThrow(/region "us-east1-b" is not offered; regions: europe-west1-b,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image' });
    expect(d.calls.filter((c) => c.operationId === 'compute.instances.insert'), 'nothing inserted for a zone, type or image that does not exist').toEqual([]);
    await expect(gcpVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/gcp needs credentials with a "serviceAccountKey"/);
    await expect(gcpVendor.createCloudDriver(config(d.url, { credentials: { serviceAccountKey: '{"type":"authorized_user"}' } }))).rejects.toThrow(/"type" "authorized_user", not "service_account"/);
    const keyFields = JSON.parse(testServiceAccountKey(d.url)) as Record<string, string>;
    const asFields = await gcpVendor.createCloudDriver(config(d.url, { credentials: keyFields }));
    expect((await asFields.testCredentials()).ok, 'the key file itself as the credential bundle (a credentialsRef.env variable holding it)').toBe(true);
    expect(() => readServiceAccountKey(JSON.stringify({ type: 'service_account', private_key: '-----BEGIN PRIVATE KEY-----', client_email: 'a@b' }), 'Provider/p')).toThrow('Provider/p: the service-account key has no "project_id"');
  });

  it('maps Google errors: quota (429 or 403 rateLimitExceeded) passes, permission is an auth refusal, a bad field a rejection', () => {
    const answer = (status: number, reason: string): gaxios.GaxiosError => {
      const config = { url: new URL('https://compute.googleapis.com/x'), headers: new Headers(), responseType: 'json' } as unknown as gaxios.GaxiosOptionsPrepared;
      const data = { error: { code: status, message: `m-${reason}`, status: 'X', errors: [{ reason }] } };
      return new gaxios.GaxiosError('failed', config, { status, statusText: '', data, headers: new Headers(), config } as unknown as gaxios.GaxiosResponse);
    };
    expect(toCairnError(answer(403, 'rateLimitExceeded'), 'gcp: x')).toMatchObject({ name: 'VendorUnavailableError', status: 429, message: 'gcp: x: 403 m-rateLimitExceeded (rateLimitExceeded)' });
    expect(toCairnError(answer(429, 'rateLimitExceeded'), 'gcp: x')).toBeInstanceOf(VendorUnavailableError);
    expect(toCairnError(answer(403, 'forbidden'), 'gcp: x')).toBeInstanceOf(VendorAuthError);
    expect(toCairnError(answer(400, 'invalid'), 'gcp: x')).toMatchObject({ name: 'VendorRejectedError', status: 400 });
    expect(toCairnError(answer(503, 'backendError'), 'gcp: x')).toBeInstanceOf(VendorUnavailableError);
    expect(readGoogleError({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' })).toEqual({ message: 'invalid_grant: Invalid JWT Signature.', status: 'invalid_grant', reason: 'invalid_grant' });
  });

  it('resizes by stop, setMachineType and start, waiting out each operation; powers off, on and resets', async () => {
    const d = await double();
    const driver = await gcpVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    expect(created.status).toBe('running');
    const resized = await driver.servers.update(created.id, { ...desired, size: 'e2-medium' });
    expect(resized).toMatchObject({ size: 'e2-medium', status: 'running' });
    expect(d.calls.filter((c) => /instances\.(stop|setMachineType|start)$/.test(c.operationId)).map((c) => c.operationId)).toEqual(['compute.instances.stop', 'compute.instances.setMachineType', 'compute.instances.start']);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    const stoppedResize = await driver.servers.update(created.id, { ...desired, size: 'e2-small' });
    expect(stoppedResize, 'a stopped instance is resized and left stopped').toMatchObject({ size: 'e2-small', status: 'stopped' });
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    await driver.servers.delete(created.id);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('sends the first-boot user data in the user-data metadata item, intact', async () => {
    const d = await double();
    const driver = await gcpVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.instances().map((s) => s.userData)).toEqual([USER_DATA, null]);
  });

  it('goes through the outbound guard, the token request included: a loopback endpoint is refused and nothing reaches the double', async () => {
    const d = await double();
    vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', '');
    try {
      const driver = await gcpVendor.createCloudDriver(config(d.url));
      const test = await driver.testCredentials();
      expect(test.ok).toBe(false);
      expect(test.message).toMatch(/private|loopback|not allowed|refused/i);
      await expect(driver.servers.observe({ key: 'cairn-guard-0' })).rejects.toMatchObject({ field: 'endpoint' });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(d.tokens.requests, 'no token request reached the double').toBe(0);
    expect(d.calls).toEqual([]);
  });

  it("validates against Google's discovery document, and can fail: a misspelt field, an unknown parameter, a wrong enum in an answer", () => {
    const validator = new DiscoveryValidator(vendorDocument('google', 'compute.v1.json'));
    const params = { project: 'cairn-double', zone: 'europe-west1-b' };
    expect(validator.validateRequest('compute.instances.insert', params, new URLSearchParams('requestId=x'), { name: 'web-1', machineType: 'zones/europe-west1-b/machineTypes/e2-small' })).toEqual([]);
    expect(validator.validateRequest('compute.instances.insert', params, new URLSearchParams('bogus=1'), { name: 'web-1', machine_type: 'e2-small' })).toEqual([
      'compute.instances.insert: unknown query parameter bogus',
      'compute.instances.insert request: Instance must NOT have additional properties (machine_type)',
    ]);
    expect(validator.validateRequest('compute.instances.insert', { project: 'Not A Project', zone: 'z' }, new URLSearchParams(), { name: 'a' })[0]).toMatch(/parameter project="Not A Project" does not match/);
    expect(validator.validateRequest('compute.zones.list', { project: 'p' }, new URLSearchParams('maxResults=many'), undefined)).toEqual(['compute.zones.list: parameter maxResults="many" is not an integer']);
    expect(validator.validateResponse('compute.instances.get', { name: 'web-1', status: 'SLEEPING' })).toEqual(['compute.instances.get answer: Instance/status must be equal to one of the allowed values']);
    expect(validator.validateResponse('compute.instances.get', { name: 'web-1', id: 42 })).toEqual(['compute.instances.get answer: Instance/id must be string']);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await gcpVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/Cloud Monitoring/);
    await expect(driver.metrics('europe-west1-b/web-1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(gcpVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'gcp',
  start: async (rateLimit) => {
    // Pages of Google's own size here: these cases are about faults and the budget, the paging test crosses pages.
    const d = await double({ maxPerPage: 500, ...(rateLimit ? { rateLimit } : {}) });
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((s) => s.name) };
  },
  driver: (url) => gcpVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'europe-west1-b', size: 'e2-small', image: 'debian-12' },
});
