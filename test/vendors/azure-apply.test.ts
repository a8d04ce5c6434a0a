/**
 * @module examples/vendors/azure, applied with the real CLI against the Azure double (its
 * Provider pointed at the double with `spec.endpoint`, the double's certificate trusted through
 * CAIRN_VENDOR_CA_FILE, Entra at the double through the bundle's `authority_host`): the VMs
 * converge, a resize is made in place, a size the subscription may not use in that region is
 * refused naming the ones it may, and a delete leaves no VM, NIC, public IP or disk behind.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAzureDouble, trustDoubleCertificate } from '../doubles/azure/server.js';
import { vendorApplySetup } from '../support/vendor-apply.js';

const SECRET = 'azure-apply-secret';
await trustDoubleCertificate(mkdtempSync(join(tmpdir(), 'cairn-azure-apply-ca-')));
const double = await startAzureDouble({ clientSecret: SECRET, actionMs: 100, retryAfterSeconds: 0 });
const credentials = { tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47', client_id: '1b7c5f1e-0c3c-4c58-9d7e-6b9a2f4c0e11', client_secret: SECRET, subscription_id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', resource_group: 'cairn', authority_host: double.url };
const setup = vendorApplySetup({ example: 'azure', title: 'the Azure SDK models', env: { AZURE_CREDENTIALS: JSON.stringify(credentials) }, start: () => Promise.resolve(double) });
const { dir, apply } = setup;
/** The provider and its servers: the folder's database.yaml is applied by the vendor's databases test, through `cairn serve`. */
const SERVER_FILES = [join(dir, 'provider.yaml'), join(dir, 'servers.yaml')];

describe('examples/vendors/azure', () => {
  it('applies and converges: three VMs at Azure, each named from its key and tagged with it', async () => {
    const result = await apply('apply', '-f', ...SERVER_FILES, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const vms = double.vms();
    expect(vms.map((vm) => `${vm.tags['cairn-name']}:${vm.location}:${vm.size}:${vm.provisioningState}:${vm.power}:${vm.image.offer}`).sort()).toEqual([
      'web-neu:northeurope:Standard_B2s:Succeeded:running:debian-12',
      'web-weu-1:westeurope:Standard_B1s:Succeeded:running:debian-12',
      'web-weu-2:westeurope:Standard_B1s:Succeeded:running:ubuntu-24_04-lts',
    ]);
    expect(vms.every((vm) => vm.name === vm.tags['cairn-key'] && vm.tags['managed-by'] === 'cairn')).toBe(true);
    expect(double.networks().sort()).toEqual(['cairn-northeurope', 'cairn-westeurope']);
  });

  it('resizes in place, and refuses a size the subscription may not use there, naming the ones it may', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: Standard_B2s', 'size: Standard_E2s_v5'));
    const resized = await apply('apply', '-f', ...SERVER_FILES, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(double.vms().map((vm) => `${vm.tags['cairn-name']}:${vm.size}`).sort()).toEqual(['web-neu:Standard_E2s_v5', 'web-weu-1:Standard_B1s', 'web-weu-2:Standard_B1s']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: Standard_E2s_v5', 'size: Standard_D4s_v5'));
    const refused = await apply('apply', '-f', ...SERVER_FILES, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('azure: size "Standard_D4s_v5" is not offered in northeurope; sizes there: Standard_B1s, Standard_B2s, Standard_E2s_v5');
    expect(double.calls.filter((c) => c.operationId === 'VirtualMachines_Update'), 'only the one resize that could be made was sent').toHaveLength(1);
  });

  it('deletes what it made: no VM, NIC, public IP or disk left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(double.vms()).toEqual([]);
    expect(double.parts()).toEqual([]);
  });
});
