/**
 * @module The hetzner driver against a stateful double of Hetzner Cloud's API whose every
 * request and answer is checked against Hetzner's own document: the shared driver contract,
 * a create whose answer was lost found again by its label (never made twice), refused tokens
 * and sizes said plainly, 30% faults absorbed, and a 429 storm kept within the budget.
 */
import { describe, expect, it } from 'vitest';
import { runCloudDriverContract } from '../../src/drivers/driver.contract.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../../src/drivers/errors.js';
import { hetznerVendor } from '../../src/drivers/hetzner/index.js';
import { startHetznerDouble, type HetznerDoubleOptions } from '../doubles/hetzner.js';
import { describeVendorFaultCases } from '../support/vendor-fault-cases.js';
import { vendorTestSetup } from '../support/vendor-test-setup.js';
import { expectRuntimeOverSsh } from '../support/ssh-runtime-expectation.js';

const USER_DATA = '#cloud-config\nssh_authorized_keys:\n  - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG2Bv9nS6 ops@example.com"\n';

const { config, double } = vendorTestSetup('hetzner', 'Hetzner', (options: HetznerDoubleOptions) => startHetznerDouble(options));

runCloudDriverContract('hetzner', async () => {
  const d = await double();
  return { driver: await hetznerVendor.createCloudDriver(config(d.url)), cleanup: () => Promise.resolve() };
});

describe('hetzner driver', () => {
  const desired = { name: 'web-1', region: 'fsn1', size: 'cx22', image: 'debian-12' };

  it('labels what it creates with its key, and a create whose answer was lost is found again, not made twice', async () => {
    const d = await double({ latencyMs: 400 });
    const impatient = await hetznerVendor.createCloudDriver(config(d.url, { requestTimeoutMs: 150 }));
    await expect(impatient.servers.create('cairn-lost-answer-0', desired)).rejects.toBeInstanceOf(VendorUnavailableError);
    const patient = await hetznerVendor.createCloudDriver(config(d.url));
    const found = await patient.servers.create('cairn-lost-answer-0', desired);
    expect(d.servers()).toEqual([expect.objectContaining({ id: Number(found.id), name: 'web-1', labels: { 'cairn-key': 'cairn-lost-answer-0', 'managed-by': 'cairn' } })]);
    expect(found.clientToken).toBe('cairn-lost-answer-0');
  });

  it('says plainly when the token is refused, and when a size does not exist', async () => {
    const d = await double();
    const wrong = await hetznerVendor.createCloudDriver(config(d.url, { credentials: { token: 'not-the-token' } }));
    const test = await wrong.testCredentials();
    expect(test).toEqual({ ok: false, message: expect.stringMatching(/401 unable to authenticate \(unauthorized\).*API token was refused/) });
    await expect(wrong.servers.create('cairn-k-0', desired)).rejects.toBeInstanceOf(VendorAuthError);
    const driver = await hetznerVendor.createCloudDriver(config(d.url));
    await expect(driver.servers.create('cairn-k-1', { ...desired, size: 'cx99' })).rejects.toThrow(new VendorRejectedError('hetzner: size "cx99" is not offered in fsn1; sizes there: cx22, cx32, cx42, cpx11, cpx21, cpx31, cax11', { field: 'size' }));
    await expect(hetznerVendor.createCloudDriver({ ...config(d.url), credentials: undefined })).rejects.toThrow(/needs credentials with a "token"/);
  });

  it('sends the first-boot user data as Hetzner takes it', async () => {
    const d = await double();
    const driver = await hetznerVendor.createCloudDriver(config(d.url));
    await driver.servers.create('cairn-user-data-0', { ...desired, userData: USER_DATA });
    await driver.servers.create('cairn-user-data-1', { ...desired, name: 'web-2' });
    expect(d.servers().map((s) => s.userData)).toEqual([USER_DATA, null]);
  });

  it('runs databases and apps on its servers over SSH, and refuses without SSH access', async () => {
    await expectRuntimeOverSsh(hetznerVendor, config('http://127.0.0.1:1'));
  });



});

describeVendorFaultCases({
  vendor: 'hetzner',
  start: async (rateLimit) => {
    const d = await double(rateLimit ? { rateLimit } : {});
    return { url: d.url, calls: d.calls, setFaultRatio: (ratio, seed) => d.setFaultRatio(ratio, seed), names: () => d.servers().map((s) => s.name) };
  },
  driver: (url) => hetznerVendor.createCloudDriver(config(url)),
  desired: { name: 'web-1', region: 'fsn1', size: 'cx22', image: 'debian-12' },
});
