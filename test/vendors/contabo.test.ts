/**
 * @module The contabo driver against a stateful double of Contabo's API whose every request and
 * answer is checked against Contabo's own document: the shared driver contract (with the resize
 * refused, as Contabo cannot change a product in place), the password grant (a token fetched
 * once and kept, fetched again after a 401, bad client or user credentials said plainly), a
 * create whose answer was lost found again by its display name (never made twice), user data
 * arriving intact, delete as a cancel (the instance runs on, cairn sees it gone), lists read
 * across pages, a product, region or image Contabo lacks refused before anything is sent, and
 * faults absorbed.
 */
import { describe, expect, it } from 'vitest';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { contaboVendor } from '../../src/drivers/contabo/index.js';
import { displayNameFor, readDisplayName } from '../../src/drivers/contabo/display-name.js';
import { readError, readStatus } from '../../src/drivers/contabo/wire-format.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { startContaboDouble, type ContaboDoubleOptions } from '../doubles/contabo.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const setup = vendorTestSetup('contabo', 'Contabo', (options: ContaboDoubleOptions) => startContaboDouble(options));
const { double } = setup;
const CREDENTIALS = { client_id: 'cairn-client', client_secret: setup.token, api_user: 'ops@example.com', api_password: 'api-password' };
const config = (url: string, overrides: Parameters<typeof setup.config>[1] = {}): ReturnType<typeof setup.config> => setup.config(url, { credentials: CREDENTIALS, ...overrides });

runCloudDriverContract('contabo', async () => {
  const d = await double();
  return { driver: await contaboVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
}, { noResizeInPlace: true });

describe('contabo driver', () => {
  const desired = { name: 'web-1', region: 'EU', size: 'V91', image: 'debian-12' };

  it('fetches one token for many requests, sends an x-request-id on each (the document requires it), and fetches a new token once after a 401', async () => {
    const d = await double();
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    await driver.regions();
    expect(await driver.servers.observe({ key: 'cairn-token-0' })).toBeNull();
    expect(await driver.servers.observe({ key: 'cairn-token-1' })).toBeNull();
    expect(d.tokensIssued(), 'the token is kept between requests').toBe(1);
    d.revokeTokens();
    expect(await driver.servers.observe({ key: 'cairn-token-2' })).toBeNull();
    expect(d.tokensIssued(), 'a refused token is fetched again, once').toBe(2);
    expect(d.calls.filter((c) => c.status === 401)).toHaveLength(1);
  });

  it('fetches a token again when the one it holds is about to expire', async () => {
    const d = await double({ tokenTtlS: 1 });
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    await driver.servers.observe({ key: 'cairn-expiry-0' });
    await driver.servers.observe({ key: 'cairn-expiry-1' });
    expect(d.tokensIssued(), 'a token living less than the margin is not reused').toBe(2);
    expect(d.calls.filter((c) => c.status === 401), 'never sent an expired token').toEqual([]);
  });

  it('says which credentials are wrong: the client (id, secret) or the API user (user, password)', async () => {
    const d = await double();
    const badClient = await contaboVendor.createCloudDriver(config(d.url, { credentials: { ...CREDENTIALS, client_secret: 'wrong' } }));
    expect(await badClient.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/^contabo: get an access token: 401 the client id or client secret was refused/) });
    const badUser = await contaboVendor.createCloudDriver(config(d.url, { credentials: { ...CREDENTIALS, api_password: 'wrong' } }));
    expect(await badUser.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/^contabo: get an access token: 401 the API user or API password was refused/) });
    await expect(badUser.servers.create('cairn-bad-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const good = await contaboVendor.createCloudDriver(config(d.url));
    expect(await good.testCredentials()).toEqual({ ok: true, message: `contabo: the credentials are accepted at ${d.url}` });
    await expect(contaboVendor.createCloudDriver(config(d.url, { credentials: { client_id: 'x' } }))).rejects.toThrow(/contabo needs credentials with "client_id", "client_secret", "api_user", "api_password"; missing: client_secret, api_user, api_password/);
    expect(d.instances()).toEqual([]);
  });

  it('carries its key in the display name, and a create whose answer was lost is found again by it, not made twice', async () => {
    const d = await double({ latencyMs: 300 });
    const impatient = await contaboVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await contaboVendor.createCloudDriver(config(d.url));
    // the impatient driver may have been cut off before or after its create landed: either way one instance at most
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.instances()).toEqual([expect.objectContaining({ id: Number(found.id), displayName: 'web-1 [cairn-key=cairn-lost-answer-0]', productId: 'V91', region: 'EU' })]);
    expect(found).toMatchObject({ name: 'web-1', clientToken: 'cairn-lost-answer-0', image: 'debian-12' });
    expect(d.calls.filter((c) => c.operationId === 'retrieveInstancesList').map((c) => c.path)).toContain('/v1/compute/instances?search=cairn-lost-answer-0&page=1&size=100');
  });

  it('finds a lost create when its answer never came back at all', async () => {
    const d = await double({ slowAnswers: { operationIds: ['createInstance'], ms: 400 } });
    const impatient = await contaboVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 200 }));
    await expect(impatient.servers.create('cairn-slow-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    expect(d.instances(), 'the create landed').toHaveLength(1);
    const again = await (await contaboVendor.createCloudDriver(config(d.url))).servers.create('cairn-slow-0', desired);
    expect(d.instances()).toEqual([expect.objectContaining({ id: Number(again.id) })]);
    expect(d.calls.filter((c) => c.operationId === 'createInstance')).toHaveLength(1);
  });

  it('sends user data as the plain cloud-init text Contabo takes, and none when there is none', async () => {
    const d = await double();
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    const userData = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3Nza cairn"\nruncmd:\n  - echo "ünïcode & quotes\'" > /etc/motd\n';
    await driver.servers.create('cairn-ud-0', { ...desired, userData });
    await driver.servers.create('cairn-ud-1', { ...desired, name: 'web-2', userData: null });
    expect(d.instances().map((i) => i.userData)).toEqual([userData, undefined]);
  });

  it('deletes by cancelling: the instance runs on to the end of its term, cairn sees it gone, and a delete again is done', async () => {
    const d = await double();
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-cancel-0', desired);
    await driver.servers.delete(created.id);
    await driver.servers.delete(created.id);
    expect(d.calls.filter((c) => c.operationId === 'cancelInstance')).toHaveLength(1);
    expect(d.instances()).toEqual([expect.objectContaining({ id: Number(created.id), cancelled: true })]);
    expect(await driver.servers.observe({ key: 'cairn-cancel-0', externalId: created.id })).toBeNull();
    expect(await driver.servers.observe({ key: 'cairn-cancel-0' }), 'a cancelled instance is not found by its key either').toBeNull();
    await driver.servers.delete('999999');
  });

  it('refuses a resize (the plan must replace the server), and powers an instance off, on and reboots it, waiting for each', async () => {
    const d = await double();
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-power-0', desired);
    await expect(driver.servers.update(created.id, { ...desired, size: 'V94' })).rejects.toThrow(new UnsupportedError(
      `contabo: resize instance "web-1" (${created.id}) to V94: Contabo cannot change an instance's product in place (its API upgrades add-ons only); replace the server to change its size from V91 to V94`,
    ));
    expect((await driver.servers.update(created.id, desired)).size, 'the same size is no change').toBe('V91');
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    expect(d.calls.filter((c) => ['start', 'stop', 'restart'].includes(c.operationId)).map((c) => c.operationId)).toEqual(['stop', 'start', 'restart']);
  });

  it('reads regions from data centers and images across pages, once; sizes are cairn\'s product table in every region', async () => {
    const d = await double({ maxPageSize: 2 });
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions).toEqual([
      { slug: 'EU', name: 'European Union', available: true }, { slug: 'US-central', name: 'United States (Central)', available: true },
      { slug: 'US-east', name: 'United States (East)', available: true }, { slug: 'UK', name: 'United Kingdom', available: true },
      { slug: 'SIN', name: 'Asia (Singapore)', available: true }, { slug: 'JPN', name: 'Asia (Japan)', available: true },
    ]);
    const sizes = await driver.sizes();
    expect(sizes.map((s) => s.slug)).toEqual(['V91', 'V92', 'V94', 'V95', 'V97', 'V98', 'V100', 'V101', 'V103', 'V104', 'V106', 'V107']);
    expect(sizes[0]).toEqual({ slug: 'V91', vcpus: 4, memoryMb: 8192, diskGb: 75, priceMonthly: 4.5, regions: regions.map((r) => r.slug) });
    expect(d.calls.filter((c) => c.operationId === 'retrieveDataCenterList'), '7 data centers, 2 a page').toHaveLength(4);
    await driver.servers.create('cairn-img-0', { ...desired, image: 'ubuntu-24.04' });
    await driver.servers.create('cairn-img-1', { ...desired, name: 'web-2', image: 'afecbb85-e2fc-46f0-9684-b46b1faf00bb' });
    expect(d.instances().map((i) => i.imageId)).toEqual(['c2e4bf4b-6a2a-4e2e-9c5e-6f0f1f0c2b7d', 'afecbb85-e2fc-46f0-9684-b46b1faf00bb']);
    expect(d.calls.filter((c) => c.operationId === 'retrieveImageList'), '5 images, 2 a page, read once').toHaveLength(3);
  });

  it('refuses a product, region or image Contabo lacks before sending anything', async () => {
    const d = await double();
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'V93' })).rejects.toThrow(
      new VendorRejectedError('contabo: size "V93" is not offered in EU; sizes there: V91, V92, V94, V95, V97, V98, V100, V101, V103, V104, V106, V107', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'mars' })).rejects.toThrow(/contabo: region "mars" is not offered; regions: EU, US-central,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('contabo: image "windows-95" is not a standard image Contabo offers; images: debian-12, debian-11,') });
    await expect(driver.servers.create('cairn-k-4', { ...desired, name: 'x'.repeat(240) })).rejects.toMatchObject({ field: 'name' });
    expect(d.calls.filter((c) => c.operationId === 'createInstance'), 'nothing created').toEqual([]);
  });

  it('reads names, keys, statuses and error bodies', () => {
    expect(readDisplayName(displayNameFor('web 1', 'cairn-abc-1'))).toEqual({ name: 'web 1', key: 'cairn-abc-1' });
    expect(readDisplayName('someone else\'s VPS')).toEqual({ name: 'someone else\'s VPS', key: undefined });
    expect(['provisioning', 'installing', 'running', 'rescue', 'stopped', 'pending_payment', 'error'].map(readStatus)).toEqual(['provisioning', 'provisioning', 'running', 'running', 'stopped', 'error', 'error']);
    expect(readError({ statusCode: 400, message: ['productId must be a string', 'period must be 1, 3, 6 or 12'] })).toEqual({ message: 'productId must be a string; period must be 1, 3, 6 or 12' });
    expect(readError({ statusCode: 404, message: 'Entry Instance not found' })).toEqual({ message: 'Entry Instance not found' });
    expect(readError('<html>')).toBeUndefined();
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await contaboVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/no CPU, memory or disk use/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(contaboVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'contabo',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return {
      url: d.url,
      // the API's calls: token requests (outside the document, at the auth realm) are not counted against its budget
      get calls() {
        return d.calls.filter((c) => !c.path.startsWith('/auth/'));
      },
      setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((s) => readDisplayName(s.displayName).name) };
  },
  driver: (url) => contaboVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'EU', size: 'V91', image: 'debian-12' },
});
