/**
 * @module The ionos driver against a stateful double of IONOS's Cloud API v6 whose every
 * request and answer is checked against IONOS's own document: the shared driver contract, a
 * create whose answer was lost found again by the key in the server's name (never made twice),
 * one `cairn-<location>` data center per location with a public LAN (found, not made again),
 * every write followed through its request status, user data arriving intact with a fresh image
 * password per create, token or username and password (one or the other), sizes and locations
 * refused before anything is sent, IONOS's error shape, 30% faults absorbed, and a 429 storm
 * kept within the budget.
 */
import { describe, expect, it } from 'vitest';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { ionosAuthorization, ionosVendor, readError } from '../../src/drivers/ionos/index.js';
import { requestIdOf } from '../../src/drivers/ionos/requests.js';
import { readServerName, serverNameFor } from '../../src/drivers/ionos/server-name.js';
import { imageName, ionosImage, slugOf } from '../../src/drivers/ionos/shapes.js';
import { readStatus } from '../../src/drivers/ionos/wire-format.js';
import { startIonosDouble, type IonosDoubleOptions } from '../doubles/ionos.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const { config, double } = vendorTestSetup('ionos', 'IONOS', (options: IonosDoubleOptions) => startIonosDouble(options));

runCloudDriverContract('ionos', async () => {
  const d = await double();
  return { driver: await ionosVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('ionos driver', () => {
  const desired = { name: 'web-1', region: 'de/fra', size: 'e-1c-2gb', image: 'debian-12' };
  const key = 'cairn-0b7c5e2a-6f1d-4c1e-9a53-2d4f7b8e9c10-1';

  it('names what it creates with its key, and a create whose answer was lost is found again by that name, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await ionosVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create(key, desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await ionosVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create(key, desired);
    expect(d.servers()).toHaveLength(1);
    expect(d.servers()[0]).toMatchObject({ name: `web-1 [cairn-key=${key}]`, location: 'de/fra', cores: 1, ram: 2048, volume: expect.objectContaining({ imageAlias: 'debian:12', size: 20 }) as unknown });
    expect(found).toMatchObject({ id: `${d.servers()[0]?.dc}/${d.servers()[0]?.id}`, name: 'web-1', clientToken: key, region: 'de/fra', size: 'e-1c-2gb', image: 'debian-12' });
    expect((await patient.servers.observe({ key }))?.id).toBe(found.id);
    expect(d.calls.filter((c) => c.operationId === 'datacentersServersPost').length).toBeLessThanOrEqual(1);
  });

  it('keeps one cairn-<location> data center with a public LAN per location, found by name, not made again', async () => {
    const d = await double();
    const first = await ionosVendor.createCloudDriver(config(d.url));
    await Promise.all([first.servers.create('cairn-dc-0', desired), first.servers.create('cairn-dc-1', { ...desired, name: 'web-2' })]);
    const second = await ionosVendor.createCloudDriver(config(d.url));
    const london = await second.servers.create('cairn-dc-2', { ...desired, name: 'web-3', region: 'gb/lhr' });
    await second.servers.create('cairn-dc-3', { ...desired, name: 'web-4' });
    expect(d.datacenters().map((dc) => `${dc.name}:${dc.location}:${dc.lans.map((l) => `${l.name}/${l.public}`).join(',')}`).sort()).toEqual(['cairn-de/fra:de/fra:cairn-public/true', 'cairn-gb/lhr:gb/lhr:cairn-public/true']);
    expect(d.calls.filter((c) => c.operationId === 'datacentersPost')).toHaveLength(2);
    expect(d.calls.filter((c) => c.operationId === 'datacentersLansPost')).toHaveLength(2);
    expect(d.servers().every((s) => s.lan === 1)).toBe(true);
    expect(london.ipv4).toMatch(/^85\.215\./);
  });

  it('follows every write through the request status in its Location until DONE', async () => {
    const d = await double({ actionMs: 1100 });
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-req-0', desired);
    expect(created.status).toBe('running');
    expect(d.servers()[0]?.busy).toBe(false);
    const polls = d.calls.filter((c) => c.operationId === 'requestsStatusGet');
    expect(polls.length, 'the data center, its LAN and the server, each polled past RUNNING').toBeGreaterThanOrEqual(6);
    expect(polls.every((c) => /^\/cloudapi\/v6\/requests\/[0-9a-f-]{36}\/status/.test(c.path))).toBe(true);
    expect(requestIdOf({ headers: new Headers({ location: 'https://api.ionos.com/cloudapi/v6/requests/abc-1/status' }) })).toBe('abc-1');
    expect(requestIdOf({ headers: new Headers() })).toBeUndefined();
  });

  it('sends user data base64 in the boot volume, arriving intact; none when there is none; a fresh image password each time', async () => {
    const d = await double();
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    const userData = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3Nza… ops@example"\nruncmd:\n  - echo "héllo ✓"\n';
    await driver.servers.create('cairn-ud-0', { ...desired, userData });
    await driver.servers.create('cairn-ud-1', { ...desired, name: 'web-2', userData: null });
    const [first, second] = d.servers();
    expect(first?.volume.userData).toBe(userData);
    expect(second?.volume.userData).toBeNull();
    expect(first?.volume.imagePassword).not.toBe(second?.volume.imagePassword);
    expect(first?.volume.imagePassword).toMatch(/^[a-zA-Z0-9]{32,}$/);
  });

  it('takes a token or a username and password, one or the other, and says plainly when refused', async () => {
    const d = await double();
    const basic = await ionosVendor.createCloudDriver(config(d.url, { credentials: { username: 'ops@example.com', password: 'ionos-test-password' } }));
    expect(await basic.testCredentials()).toEqual({ ok: true, message: expect.stringContaining('ionos: the API token is accepted') });
    const wrong = await ionosVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-token' } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/401 \[315\] Unauthorized.*refused; give an IONOS Cloud API token/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const base = config(d.url);
    await expect(ionosVendor.createCloudDriver({ ...base, credentials: undefined })).rejects.toThrow(/ionos needs credentials with either a "token" .* or a "username" and "password"$/);
    await expect(ionosVendor.createCloudDriver({ ...base, credentials: { token: 't', username: 'u' } })).rejects.toThrow(/, not both$/);
    await expect(ionosVendor.createCloudDriver({ ...base, credentials: { username: 'u' } })).rejects.toThrow(/missing: password$/);
    expect(ionosAuthorization({ ...base, credentials: { username: 'u', password: 'p' } }).header).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(d.servers()).toEqual([]);
  });

  it('refuses a size, location or image IONOS lacks before sending anything', async () => {
    const d = await double();
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'e-99c-1tb' })).rejects.toThrow(
      new VendorRejectedError('ionos: size "e-99c-1tb" is not offered in de/fra; sizes there: e-1c-2gb, e-2c-4gb, e-2c-8gb, e-4c-8gb, e-4c-16gb, e-8c-32gb', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'us/ewr', size: 'e-4c-8gb' })).rejects.toThrow(/size "e-4c-8gb" is not offered in us\/ewr; sizes there: e-1c-2gb, e-2c-4gb, e-2c-8gb$/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, region: 'es/vit' })).rejects.toThrow(/region "es\/vit" is not offered; regions: de\/fra, de\/txl/);
    await expect(driver.servers.create('cairn-k-4', { ...desired, image: 'windows' })).rejects.toMatchObject({ field: 'image' });
    expect(d.calls.filter((c) => c.method !== 'GET'), 'nothing created for a size, location or image that does not exist').toEqual([]);
    const regions = await driver.regions();
    expect(regions.find((r) => r.slug === 'de/fra')).toEqual({ slug: 'de/fra', name: 'frankfurt', available: true });
    expect((await driver.sizes()).find((s) => s.slug === 'e-2c-4gb')).toEqual({ slug: 'e-2c-4gb', vcpus: 2, memoryMb: 4096, diskGb: 40, priceMonthly: 0, regions: ['de/fra', 'de/txl', 'de/fkb', 'gb/lhr', 'us/las', 'us/ewr'] });
  });

  it('passes on IONOS’s own refusal with its message', async () => {
    const d = await double();
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-alias-0', { ...desired, image: 'centos:6' })).rejects.toThrow(/422 \[100\] \[\(root\)\.entities\.volumes\.items\[0\]\.properties\.imageAlias\] image alias centos:6 is not available in de\/fra/);
    expect(d.servers()).toEqual([]);
  });

  it('resizes cores and RAM in place; powers off, reboots and on; deletes with the boot volume, twice', async () => {
    const d = await double();
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'e-2c-4gb' });
    expect(resized).toMatchObject({ id: created.id, size: 'e-2c-4gb', status: 'running' });
    expect(d.servers()[0]).toMatchObject({ cores: 2, ram: 4096, id: created.id.split('/')[1] });
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect(d.calls.filter((c) => /Start|Stop|Reboot|Patch/.test(c.operationId)).map((c) => c.operationId)).toEqual([
      'datacentersServersPatch', 'datacentersServersStopPost', 'datacentersServersRebootPost', 'datacentersServersStopPost', 'datacentersServersStartPost',
    ]);
    await driver.servers.delete(created.id);
    await driver.servers.delete(created.id);
    expect(d.calls.filter((c) => c.operationId === 'datacentersServersDelete').map((c) => c.path)).toEqual([expect.stringContaining('deleteVolumes=true'), expect.stringContaining('deleteVolumes=true')]);
    expect(d.orphanVolumes()).toEqual([]);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('maps statuses, names, images, sizes and IONOS’s error shape', () => {
    expect(readStatus('AVAILABLE', 'RUNNING')).toBe('running');
    expect(readStatus('AVAILABLE', 'SHUTOFF')).toBe('stopped');
    expect(readStatus('AVAILABLE', 'NOSTATE')).toBe('provisioning');
    expect(readStatus('AVAILABLE', 'CRASHED')).toBe('error');
    expect(readStatus('BUSY', 'RUNNING')).toBe('provisioning');
    expect(readStatus('DEPLOYING', null)).toBe('provisioning');
    expect(readStatus('INACTIVE', 'SHUTOFF')).toBe('stopped');
    expect(readStatus('DESTROYING', 'RUNNING')).toBe('deleting');
    expect(readStatus('FAILED', 'RUNNING')).toBe('error');
    expect(readServerName(serverNameFor('web 1', key))).toEqual({ name: 'web 1', key });
    expect(readServerName('someone else’s')).toEqual({ name: 'someone else’s', key: undefined });
    expect(ionosImage('debian-12')).toEqual({ imageAlias: 'debian:12' });
    expect(ionosImage('ubuntu:latest')).toEqual({ imageAlias: 'ubuntu:latest' });
    expect(ionosImage('5b1d1ec4-0d3c-11ef-8b4a-0a58a9feac02')).toEqual({ image: '5b1d1ec4-0d3c-11ef-8b4a-0a58a9feac02' });
    expect(() => ionosImage('Windows Server')).toThrow(expect.objectContaining({ field: 'image' }) as Error);
    expect(imageName('debian:12', 'x')).toBe('debian-12');
    expect(imageName(null, 'a-uuid')).toBe('a-uuid');
    expect(slugOf(2, 4096)).toBe('e-2c-4gb');
    expect(slugOf(3, 3072)).toBe('custom-3c-3072mb');
    expect(readError({ httpStatus: 422, messages: [{ errorCode: '100', message: 'bad' }, { message: 'worse' }] })).toEqual({ message: '[100] bad; worse' });
    expect(readError({ message: 'other' })).toBeUndefined();
  });

  it('reads data centers and servers across offset pages', async () => {
    const d = await double({ maxPerPage: 1 });
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-page-0', desired);
    await driver.servers.create('cairn-page-1', { ...desired, name: 'web-2', region: 'de/txl' });
    await driver.servers.create('cairn-page-2', { ...desired, name: 'web-3', region: 'de/txl' });
    expect((await driver.servers.observe({ key: 'cairn-page-2' }))?.name).toBe('web-3');
    expect(d.calls.some((c) => c.operationId === 'datacentersGet' && c.path.includes('offset=1'))).toBe(true);
    expect(d.calls.some((c) => c.operationId === 'datacentersServersGet' && c.path.includes('offset=1'))).toBe(true);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await ionosVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/no server metrics/);
    await expect(driver.metrics('1')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(ionosVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'ionos',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.servers().map((s) => readServerName(s.name).name) };
  },
  driver: (url) => ionosVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'de/fra', size: 'e-1c-2gb', image: 'debian-12' },
});
