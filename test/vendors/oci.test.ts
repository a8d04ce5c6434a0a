/**
 * @module The oci driver, the unmodified OCI SDK as its client, against a stateful double of
 * OCI's REST APIs that checks every request's signature and every body and answer against the
 * SDK's own models: the shared driver contract; a launch whose answer was lost sent again under
 * its `opc-retry-token` (one instance), and found again by its `cairn-key` tag; ADs and shapes
 * read across `opc-next-page` pages; images by name, slug or OCID; refused keys and bad
 * credentials said plainly (bad ones before anything is sent); a shape or AD OCI lacks refused
 * before anything is sent; resize and power; user data arriving intact; the outbound guard
 * refusing a loopback endpoint with nothing reaching the double; the model validator able to
 * fail; 30% faults and a 429 storm.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ComputeClient } from 'oci-core';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { ociVendor } from '../../src/drivers/oci/index.js';
import { ociClients } from '../../src/drivers/oci/clients.js';
import { ociRequired } from '../../src/drivers/oci/errors.js';
import { keyFingerprint } from '../../src/drivers/oci/credentials.js';
import { adSlug, imageSlug, shapeVcpus } from '../../src/drivers/oci/cloud-driver.js';
import { readStatus, retryToken } from '../../src/drivers/oci/instances.js';
import { startOciDouble, type OciDouble, type OciDoubleOptions } from '../doubles/oci/server.js';
import { OciModelValidator } from '../support/oci-model-validator.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';
import { expectSpentKeyRefused } from '../support/spent-key-case.js';
import { IdempotencyKeySpentError } from '../../src/drivers/errors.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';

const setup = vendorTestSetup('oci', 'OCI', (options: OciDoubleOptions) => startOciDouble(options));
const double = setup.double;
/** A driver config for the double, signed with its tenancy's test key. */
const config = (d: OciDouble, overrides: Partial<DriverConfig> = {}): DriverConfig => setup.config(d.url, { credentials: d.credentials, ...overrides });

runCloudDriverContract('oci', async () => {
  const d = await double();
  return { driver: await ociVendor.createCloudDriver(config(d)), cleanup: () => Promise.resolve() };
});

describe('oci driver', () => {
  const desired = { name: 'web-1', region: 'eu-frankfurt-1-ad-1', size: 'VM.Standard2.1', image: 'debian-12' };

  it('says a key is spent when OCI answers its opc-retry-token with an instance since terminated, and launches nothing', async () => {
    const d = await double();
    const live = (): unknown[] => d.instances().filter((i) => !['TERMINATING', 'TERMINATED'].includes(i.state));
    await expectSpentKeyRefused(await ociVendor.createCloudDriver(config(d)), desired, { live, creates: () => d.calls.filter((c) => c.operationId === 'LaunchInstance').length });
  });

  it('says a key is spent when OCI refuses its opc-retry-token for a changed launch (409) after its instance was terminated, and launches nothing', async () => {
    const d = await double();
    const driver = await ociVendor.createCloudDriver(config(d));
    const first = await driver.servers.create('cairn-changed-0', desired);
    await driver.servers.delete(first.id);
    // Declared again at another size before the create was recorded: the same key, a different request.
    await expect(driver.servers.create('cairn-changed-0', { ...desired, size: 'VM.Standard2.2' })).rejects.toThrow(/IdempotencyConflict.*an earlier launch under it made an instance that is gone/);
    await expect(driver.servers.create('cairn-changed-0', { ...desired, size: 'VM.Standard2.2' })).rejects.toBeInstanceOf(IdempotencyKeySpentError);
    expect(d.instances().filter((i) => !['TERMINATING', 'TERMINATED'].includes(i.state))).toEqual([]);
  });

  it('sends a launch whose answer was lost again under the same opc-retry-token (one instance), and a later create finds it by its cairn-key tag', async () => {
    const d = await double({ slowAnswers: { operationIds: ['LaunchInstance'], ms: 300 } });
    const impatient = await ociVendor.createCloudDriver(config(d, { requestTimeoutMs: 150 }));
    // The catalog first, patiently: only the launch's answer is to be lost.
    const patient = await ociVendor.createCloudDriver(config(d));
    await patient.sizes();
    await expect(impatient.servers.create('cairn-lost-answer-0', { ...desired, image: d.state.images[4]!.id })).rejects.toBeInstanceOf(VendorUnavailableError);
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.instances()).toEqual([expect.objectContaining({ id: found.id, displayName: 'web-1', freeformTags: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn', 'cairn-image': d.state.images[4]!.id } })]);
    expect(found.clientToken).toBe('cairn-lost-answer-0');
    expect(d.state.retryTokens.get('cairn-lost-answer-0')?.instanceId).toBe(found.id);
    expect(d.calls.filter((c) => c.operationId === 'LaunchInstance'), 'sent three times, one instance').toHaveLength(3);
  });

  it('reads availability domains and shapes across opc-next-page pages, once; maps states, vCPUs, slugs and retry tokens', async () => {
    const d = await double({ maxPerPage: 2 });
    const driver = await ociVendor.createCloudDriver(config(d));
    const regions = await driver.regions();
    expect(regions).toEqual([1, 2, 3].map((n) => ({ slug: `eu-frankfurt-1-ad-${n}`, name: `Uocm:EU-FRANKFURT-1-AD-${n}`, available: true })));
    const sizes = await driver.sizes();
    expect(sizes.find((s) => s.slug === 'VM.Standard.A1.Flex')).toEqual({ slug: 'VM.Standard.A1.Flex', vcpus: 1, memoryMb: 6144, diskGb: 0, priceMonthly: 0, regions: ['eu-frankfurt-1-ad-1', 'eu-frankfurt-1-ad-2'] });
    expect(sizes.find((s) => s.slug === 'VM.DenseIO2.8')).toMatchObject({ vcpus: 16, diskGb: 6400, regions: ['eu-frankfurt-1-ad-1'] });
    expect(d.calls.filter((c) => c.operationId === 'ListShapes')).toHaveLength(3 + 3 + 1);
    await driver.regions();
    expect(d.calls.filter((c) => c.operationId === 'ListAvailabilityDomains'), 'the catalog is cached').toHaveLength(1);
    expect(adSlug('Uocm:EU-FRANKFURT-1-AD-2')).toBe('eu-frankfurt-1-ad-2');
    expect(shapeVcpus('VM.Standard.E4.Flex', 2)).toBe(4);
    expect(imageSlug({ operatingSystem: 'Canonical Ubuntu', operatingSystemVersion: '24.04' })).toBe('canonical-ubuntu-24.04');
    expect(['PROVISIONING', 'RUNNING', 'STOPPING', 'STOPPED', 'STARTING', 'TERMINATING', 'SOMETHING'].map(readStatus)).toEqual(['provisioning', 'running', 'stopping', 'stopped', 'starting', 'deleting', 'error']);
    expect(retryToken('cairn-short')).toBe('cairn-short');
    expect(retryToken('x'.repeat(80))).toMatch(/^cairn-[0-9a-f]{58}$/);
  });

  it('launches from an image by display name, by operating system slug (across pages) or by OCID, flexible shapes with their shape config', async () => {
    const d = await double({ maxPerPage: 2 });
    const driver = await ociVendor.createCloudDriver(config(d));
    await driver.servers.create('cairn-img-0', { ...desired, image: 'canonical-ubuntu-22.04' });
    await driver.servers.create('cairn-img-1', { ...desired, name: 'web-2', image: 'Oracle-Linux-9.4-2026.05.01-0', size: 'VM.Standard.E4.Flex' });
    const byId = await driver.servers.create('cairn-img-2', { ...desired, name: 'web-3', image: d.state.images[1]!.id });
    expect(d.instances().map((i) => d.state.images.find((img) => img.id === i.imageId)?.displayName)).toEqual(['Canonical-Ubuntu-22.04-2026.02.01-0', 'Oracle-Linux-9.4-2026.05.01-0', 'Oracle-Linux-8.10-2026.04.01-0']);
    expect(d.instances()[1]!.shapeConfig).toEqual({ ocpus: 1, memoryInGBs: 16 });
    expect(byId.image).toBe(d.state.images[1]!.id);
    await expect(driver.servers.create('cairn-img-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('oci: image "windows-95" is neither an image OCID nor the name of an image in the compartment; images: oracle-linux-9, oracle-linux-8, canonical-ubuntu-24.04, canonical-ubuntu-22.04, debian-12') });
  });

  it('says plainly when OCI refuses the key, refuses bad credentials before any request, and a shape or AD OCI lacks before sending anything', async () => {
    const d = await double();
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const wrong = await ociVendor.createCloudDriver(config(d, { credentials: { ...d.credentials, private_key: other.export({ type: 'pkcs8', format: 'pem' }).toString(), fingerprint: keyFingerprint(other) } }));
    expect(await wrong.testCredentials()).toEqual({ ok: false, message: expect.stringMatching(/^oci: test the API key: 401 NotAuthenticated: The required information to complete authentication was not provided or was incorrect: keyId .*\(opc-request-id [0-9A-F]+\): the request signature was refused; check the tenancy and user OCIDs/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const calls = d.calls.length;
    await expect(ociVendor.createCloudDriver(config(d, { credentials: { ...d.credentials, fingerprint: keyFingerprint(other) } }))).rejects.toThrow(/"fingerprint" .* is not this private key's/);
    await expect(ociVendor.createCloudDriver(config(d, { credentials: { ...d.credentials, private_key: 'not a key' } }))).rejects.toMatchObject({ field: 'private_key' });
    await expect(ociVendor.createCloudDriver(config(d, { credentials: { ...d.credentials, subnet: '' } }))).rejects.toThrow(/"subnet" is missing/);
    await expect(ociVendor.createCloudDriver(config(d, { credentials: { ...d.credentials, tenancy: 'ocid1.user.oc1..aaaa' } }))).rejects.toThrow(/"tenancy" must be an OCID of a tenancy/);
    expect(d.calls.length, 'nothing sent for credentials that cannot sign').toBe(calls);
    const driver = await ociVendor.createCloudDriver(config(d));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: expect.stringContaining('(region eu-frankfurt-1, READY)') });
    expect(await (await ociVendor.createCloudDriver(config(d, { credentials: { ...d.credentials, region: 'us-ashburn-1' } }))).testCredentials()).toEqual({ ok: false, message: expect.stringContaining('not subscribed to region us-ashburn-1; subscribed: eu-frankfurt-1, eu-amsterdam-1') });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'VM.Standard99.1' })).rejects.toThrow(
      new VendorRejectedError('oci: size "VM.Standard99.1" is not offered in eu-frankfurt-1-ad-1; sizes there: VM.Standard2.1, VM.Standard2.2, VM.Standard.E4.Flex, VM.Standard.A1.Flex, VM.DenseIO2.8', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, size: 'VM.Standard.E2.1.Micro' })).rejects.toThrow(/size "VM.Standard.E2.1.Micro" is not offered in eu-frankfurt-1-ad-1/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, region: 'eu-frankfurt-1-ad-9' })).rejects.toThrow(/region "eu-frankfurt-1-ad-9" is not offered; regions: eu-frankfurt-1-ad-1, eu-frankfurt-1-ad-2, eu-frankfurt-1-ad-3/);
    expect(d.calls.filter((c) => c.operationId === 'LaunchInstance'), 'nothing launched for a shape or AD that does not exist').toEqual([]);
  });

  it('resizes by UpdateInstance to the new shape (the instance reboots into it), powers off, on and reboots, terminates', async () => {
    const d = await double();
    const driver = await ociVendor.createCloudDriver(config(d));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'VM.Standard.E4.Flex' });
    expect(resized).toMatchObject({ size: 'VM.Standard.E4.Flex', status: 'running', ipv4: expect.stringMatching(/^198\.51\.100\./) });
    expect(d.instances()[0]!.shapeConfig).toEqual({ ocpus: 1, memoryInGBs: 16 });
    expect(d.calls.filter((c) => c.operationId === 'UpdateInstance')).toHaveLength(1);
    await driver.power(created.id, 'power_off');
    expect((await driver.servers.observe({ key: '', externalId: created.id }))?.status).toBe('stopping');
    await driver.power(created.id, 'power_on');
    await driver.power(created.id, 'reboot');
    expect(d.calls.filter((c) => c.operationId === 'InstanceAction').map((c) => new URL(c.path, 'http://x').searchParams.get('action'))).toEqual(['STOP', 'START', 'SOFTRESET']);
    await driver.servers.delete(created.id);
    await driver.servers.delete(created.id);
    // TERMINATING is gone for cairn (the double keeps the instance listed, as OCI does).
    expect(d.state.instances.map((i) => i.state)).toEqual(['TERMINATING']);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('sends again after a 503 what is safe to repeat: a read, and a power action under the opc-retry-token the SDK gives it', async () => {
    const d = await double();
    const driver = await ociVendor.createCloudDriver(config(d));
    const created = await driver.servers.create('cairn-again-0', desired);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { compute } = ociClients(config(d));
    d.failNext(1, 503);
    expect((await ociRequired('read it', () => compute.getInstance({ instanceId: created.id }))).instance.id).toBe(created.id);
    expect(d.calls.filter((c) => c.operationId === 'GetInstance').map((c) => c.status), 'a read is sent again').toEqual([503, 200]);
    d.failNext(1, 503);
    expect((await ociRequired('stop it', () => compute.instanceAction({ instanceId: created.id, action: 'STOP' }))).instance.lifecycleState).toBe('STOPPING');
    expect(d.calls.filter((c) => c.operationId === 'InstanceAction').map((c) => c.status)).toEqual([503, 200]);
    d.failNext(3, 503);
    await expect(ociRequired('read it', () => compute.getInstance({ instanceId: created.id }))).rejects.toThrow(
      /^oci: read it: 503 ServiceUnavailable: The service is currently unavailable \(opc-request-id [0-9A-F]+\)$/,
    );
  });

  it('sends the first-boot user data base64 in metadata.user_data, and none when there is none', async () => {
    const d = await double();
    const driver = await ociVendor.createCloudDriver(config(d));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.instances().map((s) => s.userData)).toEqual([USER_DATA, null]);
  });

  it('refuses metrics saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await ociVendor.createCloudDriver(config(d));
    expect(driver.metricsUnsupported).toMatch(/Monitoring/);
    await expect(driver.metrics('ocid1.instance.oc1..x')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(ociVendor, config(d));
  });
});

describe('oci through the outbound guard', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('refuses a loopback endpoint when private endpoints are closed: the SDK sends nothing to the double', async () => {
    const d = await double();
    vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', '');
    const driver = await ociVendor.createCloudDriver(config(d));
    await expect(driver.regions()).rejects.toMatchObject({ name: 'VendorRejectedError', field: 'endpoint', message: expect.stringMatching(/oci: list availability domains: cairn does not connect to 127\.0\.0\.1: it is a loopback address/) });
    await expect(driver.servers.create('cairn-guard-0', { name: 'web-1', region: 'eu-frankfurt-1-ad-1', size: 'VM.Standard2.1', image: 'debian-12' })).rejects.toMatchObject({ field: 'endpoint' });
    expect(d.calls).toEqual([]);
  });
});

describe("the OCI SDK's models as the double's check", () => {
  it('refuses bodies that break a model: a missing required field, a wrong type, an unknown field, an enum value the model lacks', () => {
    const core = new OciModelValidator('oci-core');
    expect(core.check('LaunchInstanceDetails', { availabilityDomain: 'AD-1', compartmentId: 'c', shape: 'VM.Standard2.1', sourceDetails: { sourceType: 'image', imageId: 'i' }, freeformTags: { 'cairn-key': 'k' }, metadata: { user_data: 'eA==' } })).toEqual([]);
    expect(core.check('LaunchInstanceDetails', { availabilityDomain: 7, shape: 'VM', colour: 'red', sourceDetails: { sourceType: 'image', imageID: 'i' } })).toEqual([
      'LaunchInstanceDetails.availabilityDomain: expected a string, got number',
      'LaunchInstanceDetails.compartmentId: required by LaunchInstanceDetails, missing',
      expect.stringContaining('LaunchInstanceDetails.sourceDetails.imageID: not a field of InstanceSource'),
      'LaunchInstanceDetails.colour: not a field of LaunchInstanceDetails',
    ]);
    expect(core.check('Instance', { availabilityDomain: 'a', compartmentId: 'c', id: 'i', lifecycleState: 'EXPLODED', region: 'r', shape: 's', timeCreated: 'yesterday' })).toEqual([
      expect.stringMatching(/^Instance.lifecycleState: "EXPLODED" is not one of Instance.LifecycleState: MOVING, PROVISIONING, RUNNING/),
      'Instance.timeCreated: expected an RFC 3339 date-time, got "yesterday"',
    ]);
    expect(new OciModelValidator('oci-identity').checkArray('RegionSubscription', [{ regionKey: 'FRA', regionName: 'eu-frankfurt-1', status: 'READY' }])).toEqual(['RegionSubscription[][0].isHomeRegion: required by RegionSubscription, missing']);
  });

  it('the double answers a launch that breaks the model with 400 InvalidParameter and records it', async () => {
    const d = await startOciDouble();
    try {
      const { compute } = ociClients(config(d));
      const refused = compute.launchInstance({ launchInstanceDetails: { availabilityDomain: 'Uocm:EU-FRANKFURT-1-AD-1', shape: 'VM.Standard2.1' } as never });
      await expect(refused).rejects.toMatchObject({ statusCode: 400, serviceCode: 'InvalidParameter', message: expect.stringContaining('compartmentId: required') });
      expect(d.violations).toEqual([expect.stringContaining("LaunchInstance: request breaks the SDK's model: LaunchInstanceDetails.compartmentId: required by LaunchInstanceDetails, missing")]);
      expect(compute).toBeInstanceOf(ComputeClient);
    } finally {
      await d.stop();
    }
  });
});

/** The fault cases know a double by its URL; its credentials are its own. */
const byUrl = new Map<string, OciDouble>();

describeVendorFaultCases({
  vendor: 'oci',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    byUrl.set(d.url, d);
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.instances().map((s) => s.displayName) };
  },
  driver: (url) => ociVendor.createCloudDriver(config(byUrl.get(url)!)),
  desired: { name: 'web-1', region: 'eu-frankfurt-1-ad-1', size: 'VM.Standard2.1', image: 'debian-12' },
});
