/**
 * @module The scaleway driver against a stateful double of Scaleway's Instance API whose every
 * request and answer is checked against Scaleway's own document: the shared driver contract, a
 * create whose answer was lost found again by its tag (never made twice) and finished (user
 * data, first boot), user data arriving intact before the first boot, server types read zone by
 * zone across pages, a refused key told from a project the key may not use, a type or zone
 * Scaleway lacks refused before anything is sent, resize through power off and on, 30% faults
 * absorbed, and a 429 storm kept within the budget.
 */
import { describe, expect, it } from 'vitest';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { composeUserData } from '../../src/drivers/kit/user-data.js';
import { scalewayVendor } from '../../src/drivers/scaleway/index.js';
import { keyFromTags, tagForKey } from '../../src/drivers/scaleway/key-tag.js';
import { scalewayImage } from '../../src/drivers/scaleway/servers.js';
import { nextPage, readError, readStatus } from '../../src/drivers/scaleway/wire-format.js';
import { ZONES, zoneName } from '../../src/drivers/scaleway/zones.js';
import { loadVendorDocument, vendorDocument } from '../support/vendor-double.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble, type ScalewayDoubleOptions } from '../doubles/scaleway.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const setup = vendorTestSetup('scaleway', 'Scaleway', (options: ScalewayDoubleOptions) => startScalewayDouble(options));
const { double } = setup;

function config(url: string, overrides: Partial<DriverConfig> = {}): DriverConfig {
  return setup.config(url, { credentials: { secret_key: setup.token, project_id: SCALEWAY_TEST_PROJECT }, ...overrides });
}

runCloudDriverContract('scaleway', async () => {
  const d = await double();
  return { driver: await scalewayVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('scaleway driver', () => {
  const desired = { name: 'web-1', region: 'fr-par-1', size: 'DEV1-S', image: 'debian-12' };

  it('tags what it creates with its key; a create whose answer was lost is found by that tag, not made twice, and is booted', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await scalewayVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await scalewayVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.servers()).toEqual([expect.objectContaining({ id: found.id.split('/')[1], name: 'web-1', image: 'debian_bookworm', tags: ['cairn-key=cairn-lost-answer-0', 'managed-by=cairn'], boots: 1 })]);
    expect(found.clientToken).toBe('cairn-lost-answer-0');
    expect(found.id).toMatch(/^fr-par-1\/[0-9a-f-]{36}$/);
    expect(d.calls.filter((c) => c.operationId === 'ListServers').map((c) => c.path)).toContain(
      `/instance/v1/zones/fr-par-1/servers?tags=cairn-key%3Dcairn-lost-answer-0&project=${SCALEWAY_TEST_PROJECT}&per_page=2`,
    );
    expect(d.calls.filter((c) => c.operationId === 'CreateServer')).toHaveLength(1);
    const lost = await patient.servers.observe({ key: 'cairn-lost-answer-0' });
    expect(lost?.id, 'found by its tag in any zone, without its id').toBe(found.id);
  });

  it('sends the user data as text before the first boot, intact; none when there is none', async () => {
    const d = await double();
    const driver = await scalewayVendor.createCloudDriver(config(d.url));
    const userData = composeUserData('#!/bin/sh\necho "héllo, wörld" > /etc/motd\n', ['ssh-ed25519 AAAAC3Nza test@cairn']);
    const created = await driver.servers.create('cairn-userdata-0', { ...desired, userData });
    await driver.servers.create('cairn-userdata-1', { ...desired, name: 'web-2', userData: null });
    const [withData, without] = d.servers();
    expect(withData?.userData).toEqual({ 'cloud-init': userData });
    expect(without?.userData).toEqual({});
    const order = d.calls.filter((c) => c.path.includes(created.id.split('/')[1] ?? '-') && c.method !== 'GET').map((c) => c.operationId);
    expect(order, 'user data is set while the server is still stopped, before poweron').toEqual(['SetServerUserData', 'ServerAction']);
    expect(userData).toContain('ssh-ed25519 AAAAC3Nza test@cairn');
  });

  it('reads the key back from tags, maps states, errors, pages and images', () => {
    expect(tagForKey('cairn-0b7c-1')).toBe('cairn-key=cairn-0b7c-1');
    expect(() => tagForKey('a,b')).toThrow(/comma/);
    expect(keyFromTags(['web', 'cairn-key=cairn-0b7c-1'])).toBe('cairn-0b7c-1');
    expect(keyFromTags(['web'])).toBeUndefined();
    expect(['running', 'stopped', 'stopped in place', 'starting', 'stopping', 'locked'].map(readStatus)).toEqual(['running', 'stopped', 'stopped', 'starting', 'stopping', 'error']);
    expect(readError({ type: 'invalid_arguments', message: 'invalid argument(s)', details: [{ argument_name: 'commercial_type', reason: 'constraint', help_message: 'unknown type' }] }))
      .toEqual({ message: 'invalid argument(s): unknown type', field: 'commercial_type' });
    expect(readError({ type: 'transient_state', message: 'busy' })).toEqual({ message: 'busy', passing: true });
    expect(readError('<html>')).toBeUndefined();
    expect(nextPage(1, 100, '150', 100, 100)).toBe('2');
    expect(nextPage(2, 100, '150', 150, 50)).toBeUndefined();
    expect(nextPage(1, 100, '6', 2, 2), 'a page shorter than asked, with more to come').toBe('2');
    expect(nextPage(1, 3, null, 3, 3)).toBe('2');
    expect(nextPage(4, 3, '99', 9, 0), 'an empty page ends the list').toBeUndefined();
    expect(scalewayImage('debian-12')).toBe('debian_bookworm');
    expect(scalewayImage('ubuntu_noble')).toBe('ubuntu_noble');
    expect(zoneName('fr-par-2')).toBe('Paris 2');
    expect(zoneName('it-mil-1')).toBe('Milan 1');
  });

  it("takes its zones from the document's zone enum", async () => {
    const doc = await loadVendorDocument(vendorDocument('scaleway', 'scaleway.instance.v1.Api.yml'));
    const params = (doc.paths?.['/instance/v1/zones/{zone}/servers']?.get?.parameters ?? []) as Array<{ name: string; schema?: { enum?: string[] } }>;
    expect(ZONES).toEqual(params.find((p) => p.name === 'zone')?.schema?.enum);
  });

  it('reads server types zone by zone across pages, once, and names zones', async () => {
    const d = await double({ maxPerPage: 2 });
    const driver = await scalewayVendor.createCloudDriver(config(d.url));
    const regions = await driver.regions();
    expect(regions.map((r) => r.slug)).toEqual(ZONES);
    expect(regions.find((r) => r.slug === 'nl-ams-1')).toEqual({ slug: 'nl-ams-1', name: 'Amsterdam 1', available: true });
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'DEV1-S')).toEqual({ slug: 'DEV1-S', vcpus: 2, memoryMb: 2048, diskGb: 20, priceMonthly: 6.42, regions: ['fr-par-1', 'fr-par-2', 'nl-ams-1', 'pl-waw-1'] });
    expect(sizes.find((s) => s.slug === 'PLAY2-NANO')).toMatchObject({ diskGb: 0, regions: ['fr-par-1', 'fr-par-2', 'nl-ams-1', 'pl-waw-1', 'it-mil-1'] });
    const typeCalls = d.calls.filter((c) => c.operationId === 'ListServersTypes');
    expect(typeCalls.filter((c) => c.path.startsWith('/instance/v1/zones/fr-par-1/')), 'six types in fr-par-1, two a page').toHaveLength(3);
    await driver.sizes();
    expect(d.calls.filter((c) => c.operationId === 'ListServersTypes'), 'the catalog is cached').toHaveLength(typeCalls.length);
  });

  it('tells a refused key from a project the key may not use, and refuses a type or zone Scaleway lacks before sending anything', async () => {
    const d = await double();
    const wrongKey = await scalewayVendor.createCloudDriver(config(d.url, { credentials: { secret_key: 'not-the-key', project_id: SCALEWAY_TEST_PROJECT } }));
    expect(await wrongKey.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/401 authentication is denied: the secret key was refused; create an API key/) });
    await expect(wrongKey.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const otherProject = '00000000-0000-4000-8000-000000000000';
    const wrongProject = await scalewayVendor.createCloudDriver(config(d.url, { credentials: { secret_key: setup.token, project_id: otherProject } }));
    expect(await wrongProject.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(new RegExp(`403 insufficient permissions: the secret key is valid but may not list servers in project ${otherProject}; check project_id`)) });
    const driver = await scalewayVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: expect.stringContaining(`may list servers in project ${SCALEWAY_TEST_PROJECT}`) });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'GP9-HUGE' })).rejects.toThrow(
      new VendorRejectedError('scaleway: size "GP9-HUGE" is not offered in fr-par-1; sizes there: DEV1-S, DEV1-M, DEV1-L, GP1-XS, PLAY2-NANO, POP2-2C-8G', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'mars-1' })).rejects.toThrow(/region "mars-1" is not offered; regions: fr-par-1, fr-par-2,/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, region: 'it-mil-1' })).rejects.toThrow(/size "DEV1-S" is not offered in it-mil-1/);
    expect(d.calls.filter((c) => c.operationId === 'CreateServer'), 'nothing created for a type or zone that does not exist').toEqual([]);
    await expect(scalewayVendor.createCloudDriver({ ...config(d.url), credentials: { secret_key: 'k' } })).rejects.toThrow(/scaleway needs credentials with a "project_id"/);
    await expect(scalewayVendor.createCloudDriver({ ...config(d.url), credentials: { project_id: SCALEWAY_TEST_PROJECT } })).rejects.toThrow(/scaleway needs credentials with a "secret_key"/);
    await expect(scalewayVendor.createCloudDriver({ ...config(d.url), credentials: { secret_key: 'k', project_id: 'my-project' } })).rejects.toMatchObject({ field: 'project_id', message: expect.stringContaining('"my-project" is not a Project UUID') });
    expect(scalewayVendor.credentialFields.map((f) => [f.name, f.required])).toEqual([['secret_key', true], ['project_id', true]]);
  });

  it('resizes a running server through power off and on, and a stopped one without booting it; powers it off and on; deletes it', async () => {
    const d = await double();
    const driver = await scalewayVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'DEV1-M' });
    expect(resized).toMatchObject({ size: 'DEV1-M', status: 'running' });
    expect(d.calls.filter((c) => c.operationId === 'UpdateServer')).toHaveLength(1);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect((await driver.servers.update(created.id, { ...desired, size: 'DEV1-L' })).status).toBe('stopped');
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    expect(d.servers()[0]).toMatchObject({ commercialType: 'DEV1-L', state: 'running' });
    await driver.power(created.id, 'power_off');
    await driver.servers.delete(created.id);
    expect(d.servers(), 'terminate (booted first: Scaleway terminates running servers only) removed it').toEqual([]);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
    await driver.servers.delete(created.id);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps on an Instance over SSH', async () => {
    const d = await double();
    const driver = await scalewayVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/no CPU, memory or disk use/);
    await expect(driver.metrics('fr-par-1/x')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(scalewayVendor, config('http://127.0.0.1:1'));
  });
});

describeVendorFaultCases({
  vendor: 'scaleway',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.servers().map((s) => s.name) };
  },
  driver: (url) => scalewayVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'fr-par-1', size: 'DEV1-S', image: 'debian-12' },
  observeCalls: ZONES.length,
});
