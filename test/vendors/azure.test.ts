/**
 * @module The azure driver, through Microsoft's unmodified SDKs, against a stateful double of
 * Entra and Azure Resource Manager over HTTPS whose every request and answer is checked against
 * the SDKs' own serializer models: the shared driver contract, a create whose answer was lost
 * found again by its deterministic name (never made twice), user data and SSH keys as Azure
 * takes them, SKUs read across nextLink pages, a refused client secret said plainly, sizes,
 * regions and images Azure lacks refused before anything is sent, the VM's NIC, public IP and
 * disk gone with it, a loopback endpoint refused by the outbound guard with nothing sent, the
 * validator able to fail, 30% faults absorbed and a 429 storm kept within the budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { azureVendor } from '../../src/drivers/azure/index.js';
import { vmNameForKey } from '../../src/drivers/azure/resource-names.js';
import { readStatus } from '../../src/drivers/azure/wire-format.js';
import { publicKeysIn } from '../../src/drivers/azure/virtual-machines.js';
import type { DriverConfig } from '../../src/drivers/contract.js';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { startAzureDouble, trustDoubleCertificate, type AzureDouble, type AzureDoubleOptions } from '../doubles/azure/server.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const SECRET = 'azure-test-client-secret';
const CREDENTIALS = { tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47', client_id: '1b7c5f1e-0c3c-4c58-9d7e-6b9a2f4c0e11', client_secret: SECRET, subscription_id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' };
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com';
const USER_DATA = `#cloud-config\nssh_authorized_keys:\n  - "${KEY}"\nruncmd:\n  - echo héllo > /tmp/x\n`;

const caDir = mkdtempSync(join(tmpdir(), 'cairn-azure-ca-'));
const setup = vendorTestSetup('azure', 'the Azure SDK models', (options: AzureDoubleOptions & { token: string }) => startAzureDouble({ ...options, clientSecret: SECRET }));
const double = (options: Partial<AzureDoubleOptions> = {}): Promise<AzureDouble> => setup.double({ clientSecret: SECRET, retryAfterSeconds: 0, ...options });

/** The driver config for a double: the service principal's bundle, Entra at the double too. */
function config(url: string, overrides: Partial<DriverConfig> = {}, credentials: Record<string, string> = {}): DriverConfig {
  return setup.config(url, { credentials: { ...CREDENTIALS, authority_host: url, ...credentials }, ...overrides });
}

beforeAll(async () => {
  await trustDoubleCertificate(caDir);
  vi.stubEnv('CAIRN_POLL_MS', '50');
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(caDir, { recursive: true, force: true });
});

runCloudDriverContract('azure', async () => {
  const d = await double();
  return { driver: await azureVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('azure driver', () => {
  const desired = { name: 'web-1', region: 'westeurope', size: 'Standard_B1s', image: 'debian-12' };

  it('names the VM from its key and tags it; a create whose answer was lost is found again by that name, not made twice', async () => {
    const d = await double({ slowAnswers: { operationIds: ['VirtualMachines_CreateOrUpdate'], ms: 600 } });
    const impatient = await azureVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 300 }));
    await impatient.regions();
    const lost = await impatient.servers.create('cairn-lost-answer-0', desired, { signal: AbortSignal.timeout(300) }).then(() => 'answered', (error: unknown) => error);
    expect(lost).toBeInstanceOf(VendorUnavailableError);
    const patient = await azureVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.vms()).toEqual([expect.objectContaining({ name: 'cairn-lost-answer-0', tags: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn', 'cairn-name': 'web-1' } })]);
    expect(found).toMatchObject({ name: 'web-1', clientToken: 'cairn-lost-answer-0', region: 'westeurope', size: 'Standard_B1s', image: 'debian-12' });
    expect(d.calls.filter((c) => c.operationId === 'VirtualMachines_CreateOrUpdate')).toHaveLength(1);
    expect(found.id).toBe('/subscriptions/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/resourceGroups/cairn/providers/Microsoft.Compute/virtualMachines/cairn-lost-answer-0');
  });

  it('derives names Azure takes from any key, reads keys out of user data, and folds provisioning and power state into one status', () => {
    expect(vmNameForKey('cairn-0b7c1f2e-5d5e-4a5b-8f3c-1234567890ab-1')).toBe('cairn-0b7c1f2e-5d5e-4a5b-8f3c-1234567890ab-1');
    expect(vmNameForKey('cairn_a.b')).toMatch(/^cairn-[0-9a-f]{32}$/);
    expect(vmNameForKey('x'.repeat(70))).toBe(vmNameForKey('x'.repeat(70)));
    expect(publicKeysIn(USER_DATA)).toEqual([KEY]);
    expect(readStatus('Creating', [])).toBe('provisioning');
    expect(readStatus('Succeeded', [{ code: 'PowerState/running' }])).toBe('running');
    expect(readStatus('Succeeded', [{ code: 'PowerState/deallocated' }])).toBe('stopped');
    expect(readStatus('Succeeded', [{ code: 'PowerState/deallocating' }])).toBe('stopping');
    expect(readStatus('Updating', [{ code: 'PowerState/running' }])).toBe('provisioning');
    expect(readStatus('Failed', [{ code: 'PowerState/running' }])).toBe('error');
    expect(readStatus('Deleting', [])).toBe('deleting');
  });

  it('reads physical regions, and sizes across nextLink pages without the ones restricted for the subscription, once', async () => {
    const d = await double({ pageSize: 2 });
    const driver = await azureVendor.createCloudDriver(config(d.url));
    expect((await driver.regions()).map((r) => r.slug)).toEqual(['westeurope', 'northeurope', 'germanywestcentral', 'eastus']);
    const sizes = await driver.sizes();
    expect(sizes.map((s) => s.slug)).toEqual(['Standard_B1s', 'Standard_B2s', 'Standard_D2s_v5', 'Standard_D4s_v5', 'Standard_E2s_v5']);
    expect(sizes.find((s) => s.slug === 'Standard_B2s')).toEqual({ slug: 'Standard_B2s', vcpus: 2, memoryMb: 4096, diskGb: 8, priceMonthly: 0, regions: ['westeurope', 'northeurope', 'germanywestcentral', 'eastus'] });
    expect(sizes.find((s) => s.slug === 'Standard_D4s_v5')?.regions).toEqual(['westeurope']);
    expect(d.calls.filter((c) => c.operationId === 'ResourceSkus_List')).toHaveLength(3);
    await driver.sizes();
    expect(d.calls.filter((c) => c.operationId === 'ResourceSkus_List'), 'the catalog is cached').toHaveLength(3);
  });

  it('says plainly when Entra refuses the client secret, and refuses a size, region or image Azure lacks before sending anything', async () => {
    const d = await double();
    const wrong = await azureVendor.createCloudDriver(config(d.url, {}, { client_secret: 'not-the-secret' }));
    const test = await wrong.testCredentials();
    expect(test).toEqual({ ok: false, message: expect.stringMatching(/Entra refused the service principal: AADSTS7000215: Invalid client secret provided.*check tenant_id, client_id and client_secret/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await azureVendor.createCloudDriver(config(d.url));
    expect(await driver.testCredentials()).toEqual({ ok: true, message: expect.stringContaining('reaches subscription cairn tests') });
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'Standard_D4s_v5', region: 'eastus' })).rejects.toThrow(
      new VendorRejectedError('azure: size "Standard_D4s_v5" is not offered in eastus; sizes there: Standard_B1s, Standard_B2s, Standard_D2s_v5', { field: 'size' }),
    );
    await expect(driver.servers.create('cairn-k-2', { ...desired, region: 'europe' })).rejects.toThrow(/region "europe" is not offered; regions: westeurope, northeurope/);
    await expect(driver.servers.create('cairn-k-3', { ...desired, image: 'windows-95' })).rejects.toMatchObject({ field: 'image', message: expect.stringContaining('azure: image "windows-95" is neither a marketplace URN') });
    expect(d.calls.filter((c) => c.method !== 'GET'), 'nothing written for a size, region or image that does not exist').toEqual([]);
    await expect(azureVendor.createCloudDriver({ ...config(d.url), credentials: { tenant_id: 't' } })).rejects.toThrow(/azure needs credentials with "client_id"/);
    await expect(azureVendor.createCloudDriver(config(d.url, {}, { authority_host: 'http://127.0.0.1:1' }))).rejects.toMatchObject({ field: 'credentials.authority_host' });
  });

  it('says which resource group is missing', async () => {
    const d = await double();
    const driver = await azureVendor.createCloudDriver(config(d.url, {}, { resource_group: 'elsewhere' }));
    await expect(driver.servers.create('cairn-rg-0', desired)).rejects.toThrow(/404 ResourceGroupNotFound Resource group 'elsewhere' could not be found/);
  });

  it('sends user data as base64 customData and its SSH keys as the Linux profile keys; a server without keys gets one nobody holds', async () => {
    const d = await double();
    const driver = await azureVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    const [withData, without] = d.vms();
    expect(withData).toMatchObject({ userData: USER_DATA, sshKeys: [KEY], adminUsername: 'cairn', computerName: 'web-1' });
    expect(without).toMatchObject({ userData: null, sshKeys: [expect.stringMatching(/^ssh-ed25519 \S+ cairn: no key was given/)] });
  });

  it('resizes in place, deallocates and starts; deleting the VM takes its NIC, public IP and disk; the network stays for the next', async () => {
    const d = await double();
    const driver = await azureVendor.createCloudDriver(config(d.url));
    const created = await driver.servers.create('cairn-resize-0', desired);
    const running = await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id });
    expect(d.parts()).toHaveLength(3);
    const resized = await driver.servers.update(created.id, { ...desired, size: 'Standard_B2s' });
    expect(resized).toMatchObject({ size: 'Standard_B2s', status: 'running', ipv4: expect.stringMatching(/^20\.50\./) });
    expect(running?.status === 'provisioning' || running?.status === 'running').toBe(true);
    expect((await driver.power(created.id, 'power_off')).status).toBe('stopped');
    expect(d.calls.filter((c) => c.operationId === 'VirtualMachines_Deallocate')).toHaveLength(1);
    expect((await driver.power(created.id, 'power_on')).status).toBe('running');
    expect((await driver.power(created.id, 'reboot')).status).toBe('running');
    await driver.servers.delete(created.id);
    expect(d.parts()).toEqual([]);
    expect(d.networks()).toEqual(['cairn-westeurope']);
    expect(await driver.servers.observe({ key: 'cairn-resize-0', externalId: created.id })).toBeNull();
  });

  it('goes out through the outbound guard: a loopback endpoint is refused when private endpoints are closed, and nothing reaches the double', async () => {
    const d = await double();
    vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', '');
    try {
      const driver = await azureVendor.createCloudDriver(config(d.url));
      await expect(driver.servers.create('cairn-guard-0', desired)).rejects.toMatchObject({ name: 'VendorRejectedError', field: 'endpoint', message: expect.stringContaining('cairn does not connect to 127.0.0.1') });
      expect(await driver.testCredentials()).toMatchObject({ ok: false, message: expect.stringContaining('CAIRN_ALLOW_PRIVATE_ENDPOINTS') });
    } finally {
      vi.stubEnv('CAIRN_ALLOW_PRIVATE_ENDPOINTS', 'true');
    }
    expect(d.calls).toEqual([]);
    expect(d.tokenRequests).toBe(0);
  });

  it("the double's validator refuses a body outside the SDK's models", async () => {
    const d = await double();
    expect(d.check('compute', 'VirtualMachine', { location: 'westeurope', properties: { hardwareProfile: { vmSize: 'Standard_B1s' } } }, 'request')).toEqual([]);
    expect(d.check('compute', 'VirtualMachine', { properties: { hardwareProfile: { vmSize: 7 }, osProfile: { adminPassword: 'x', nonsense: 1 } }, id: '/x' }, 'request')).toEqual([
      'check.location: required but missing',
      'check.properties.hardwareProfile.vmSize: should be a string, got 7',
      'check.properties.osProfile.nonsense: not a field of the model',
      'check.id: read-only, yet sent in a request',
    ]);
    expect(d.check('compute', 'InstanceViewStatus', { code: 'PowerState/running', level: 'Loud' }, 'answer')).toEqual(['check.level: "Loud" is not one of ["Info","Warning","Error"]']);
    expect(d.check('network', 'PublicIPAddress', { properties: { ipAddress: ['20.50.0.1'] } }, 'answer')).toEqual(['check.properties.ipAddress: should be a string, got ["20.50.0.1"]']);
  });

  it('refuses metrics from its API, saying why, and runs databases and apps over SSH', async () => {
    const d = await double();
    const driver = await azureVendor.createCloudDriver(config(d.url));
    expect(driver.metricsUnsupported).toMatch(/Azure Monitor/);
    await expect(driver.metrics('x')).rejects.toBeInstanceOf(UnsupportedError);
    await expectRuntimeOverSsh(azureVendor, config(d.url));
  });
});

describeVendorFaultCases({
  vendor: 'azure',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.vms().map((vm) => vm.tags['cairn-name'] ?? vm.name) };
  },
  driver: (url) => azureVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'westeurope', size: 'Standard_B1s', image: 'debian-12' },
  observeNothingStatus: 404,
});
