/**
 * @module The exoscale driver against a stateful double of Exoscale's API whose every request
 * and answer is checked against Exoscale's own document, and whose every request must carry a
 * good EXO2-HMAC-SHA256 signature: the shared driver contract, a create whose answer was lost
 * found again by its label (never made twice), templates resolved by name, user data arriving
 * intact, a refused key said plainly, sizes and zones Exoscale lacks refused before anything is
 * sent, a resize by stop → scale → start, 30% faults absorbed and a 429 storm kept within the
 * budget.
 */
import { describe, expect, it } from 'vitest';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { exoscaleVendor } from '../../src/drivers/exoscale/index.js';
import { exoscaleAuthorization } from '../../src/drivers/exoscale/signature.js';
import { parseExternalId, readStatus, templateSlug } from '../../src/drivers/exoscale/wire-format.js';
import { signatureProblem, startExoscaleDouble, type ExoscaleDoubleOptions } from '../doubles/exoscale.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const SECRET = 'exoscale-test-secret';
const setup = vendorTestSetup('exoscale', 'Exoscale', (options: ExoscaleDoubleOptions) => startExoscaleDouble({ ...options, secret: SECRET }));
const { double, token } = setup;

/** A driver config with Exoscale's two credentials (the setup's token is the API key). */
function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(url, { credentials: { api_key: token, api_secret: SECRET }, ...overrides });
}

runCloudDriverContract('exoscale', async () => {
  const d = await double();
  return { driver: await exoscaleVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('exoscale driver', () => {
  const desired = { name: 'web-1', region: 'ch-gva-2', size: 'standard.small', image: 'debian-12' };

  it('labels what it creates with its key, and a create whose answer was lost is found again by that label, not made twice', async () => {
    const d = await double({ slowAnswers: { operationIds: ['create-instance'], ms: 400 } });
    const impatient = await exoscaleVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await exoscaleVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.instances()).toEqual([
      expect.objectContaining({ id: parseExternalId(found.id)?.id, name: 'web-1', size: 'standard.small', diskSize: 10, labels: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn', 'cairn-zone': 'ch-gva-2' } }),
    ]);
    expect(found).toMatchObject({ clientToken: 'cairn-lost-answer-0', region: 'ch-gva-2', size: 'standard.small', image: 'debian-12' });
    expect(found.id).toMatch(/^[0-9a-f-]{36}@ch-gva-2$/);
    expect(d.calls.filter((c) => c.operationId === 'create-instance'), 'the one create whose answer was lost, and no other').toHaveLength(1);
    expect(await patient.servers.observe({ key: 'cairn-lost-answer-0' }), 'found by its label without an id').toMatchObject({ id: found.id });
  });

  it('sends user data base64 in user-data, arriving intact; none when there is none', async () => {
    const d = await double();
    const driver = await exoscaleVendor.createCloudDriver(config(d.url));
    const userData = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3 me@host"\nruncmd:\n  - echo "héllo wörld" > /etc/motd\n';
    await driver.servers.create('cairn-ud-0', { ...desired, userData });
    await driver.servers.create('cairn-ud-1', { ...desired, name: 'web-2', userData: null });
    expect(d.instances().map((i) => i.userData)).toEqual([userData, null]);
  });

  it('reads the key and zone back, maps states and template names, and pins the zone in its ids', () => {
    expect(templateSlug('Linux Debian 12 (Bookworm) 64-bit')).toBe('debian-12');
    expect(templateSlug('Linux Ubuntu 24.04 LTS 64-bit')).toBe('ubuntu-24-04-lts');
    expect(parseExternalId('5a1a7d2c-6b7e-4d3a-9f0e-0d6c1a2b3c4d@de-fra-1')).toEqual({ id: '5a1a7d2c-6b7e-4d3a-9f0e-0d6c1a2b3c4d', zone: 'de-fra-1' });
    expect(parseExternalId('42')).toBeUndefined();
    expect(['running', 'stopped', 'starting', 'stopping', 'destroying', 'creating', 'error', 'migrating', 'weird'].map(readStatus)).toEqual([
      'running', 'stopped', 'starting', 'stopping', 'deleting', 'provisioning', 'error', 'running', 'error',
    ]);
  });

  it('reads zones and instance types (memory in MB, disk 10 GB, no price, authorised types only), and finds templates by name, once', async () => {
    const d = await double();
    const driver = await exoscaleVendor.createCloudDriver(config(d.url));
    expect((await driver.regions()).map((r) => r.slug)).toEqual(['ch-gva-2', 'ch-dk-2', 'de-fra-1', 'de-muc-1', 'at-vie-1', 'at-vie-2', 'bg-sof-1', 'hr-zag-1']);
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'cpu.large')).toEqual({ slug: 'cpu.large', vcpus: 8, memoryMb: 8192, diskGb: 10, priceMonthly: 0, regions: ['ch-gva-2', 'de-fra-1'] });
    expect(sizes.map((s) => s.slug), 'a type needing authorisation is not offered').not.toContain('gpu3.large');
    await driver.servers.create('cairn-tpl-0', { ...desired, image: 'ubuntu-24-04-lts' });
    await driver.servers.create('cairn-tpl-1', { ...desired, name: 'web-2', image: '7e9a1c2b-0000-4000-8000-000000000011' });
    expect(d.instances().map((i) => i.template)).toEqual(['7e9a1c2b-0000-4000-8000-000000002404', '7e9a1c2b-0000-4000-8000-000000000011']);
    expect(d.calls.filter((c) => c.operationId === 'list-templates'), 'templates read once per zone').toHaveLength(1);
    expect(d.calls.filter((c) => c.operationId === 'list-instance-types'), 'the catalog is cached').toHaveLength(1);
  });

  it('says plainly when the key or secret is refused, and refuses a size, zone or image Exoscale lacks before creating anything', async () => {
    const d = await double();
    const wrong = await exoscaleVendor.createCloudDriver(config(d.url, { credentials: { api_key: token, api_secret: 'not-the-secret' } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/403 invalid request signature: the API key or its secret was refused; create an API key/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await exoscaleVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: `exoscale: the API key is accepted at ${d.url}` });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'standard.colossal' })).rejects.toThrow(
      new VendorRejectedError('exoscale: size "standard.colossal" is not offered in ch-gva-2; sizes there: standard.micro, standard.tiny, standard.small, standard.medium, cpu.large', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'mars-1' })).rejects.toThrow(/region "mars-1" is not offered; regions: ch-gva-2, ch-dk-2,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('exoscale: image "windows-95" is not a public template in ch-gva-2; images: debian-12, debian-11, ubuntu-24-04-lts') });
    expect(d.calls.filter((c) => c.operationId === 'create-instance'), 'nothing created for a size, zone or image that does not exist').toEqual([]);
    await expect(exoscaleVendor.createCloudDriver({ ...config(d.url), credentials: { api_key: token } })).rejects.toThrow(/exoscale needs credentials with "api_key" and "api_secret"; "api_secret"/);
  });

  it('the double checks signatures by the document’s rule: a good one passes; a changed body, an unsigned query or an expired one does not', () => {
    const url = new URL('http://127.0.0.1/v2/instance?labels=a');
    const now = 1_900_000_000;
    const header = exoscaleAuthorization('EXOk', 's', { method: 'POST', url, body: '{"a":1}' }, now + 600);
    expect(signatureProblem(header, 'EXOk', 's', { method: 'POST', url, body: '{"a":1}' }, now)).toBeNull();
    expect(signatureProblem(header, 'EXOk', 's', { method: 'POST', url, body: '{"a":2}' }, now)).toBe('invalid request signature');
    expect(signatureProblem(header, 'EXOk', 's', { method: 'POST', url, body: '{"a":1}' }, now + 601)).toBe('request signature has expired');
    expect(signatureProblem(header, 'EXOother', 's', { method: 'POST', url, body: '{"a":1}' }, now)).toBe('invalid API key');
    const unsigned = exoscaleAuthorization('EXOk', 's', { method: 'GET', url: new URL('http://127.0.0.1/v2/instance'), body: undefined }, now + 600);
    expect(signatureProblem(unsigned, 'EXOk', 's', { method: 'GET', url, body: '' }, now)).toMatch(/invalid request signature|not signed/);
  });

  it('resizes by stop → scale → start, following each operation; powers it off and on; deletes it', async () => {
    const d = await double();
    const driver = await exoscaleVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    expect(created.status).toBe('running');
    const resized = await driver.servers.update(created.id, { ...desired, size: 'standard.medium' });
    expect(resized).toMatchObject({ size: 'standard.medium', status: 'running' });
    expect(d.calls.filter((c) => /^(stop|scale|start)-instance$/.test(c.operationId)).map((c) => c.operationId)).toEqual(['stop-instance', 'scale-instance', 'start-instance']);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    const stoppedResize = await driver.servers.update(created.id, { ...desired, size: 'standard.small' });
    expect(stoppedResize, 'a stopped instance is scaled and left stopped').toMatchObject({ size: 'standard.small', status: 'stopped' });
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    await driver.servers.delete(created.id);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
    await driver.servers.delete(created.id);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const driver = await exoscaleVendor.createCloudDriver(config('http://127.0.0.1:1'));
    expect(driver.metricsUnsupported).toMatch(/no instance metrics endpoint/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(exoscaleVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'exoscale',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((s) => s.name) };
  },
  driver: (url) => exoscaleVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'ch-gva-2', size: 'standard.small', image: 'debian-12' },
});
