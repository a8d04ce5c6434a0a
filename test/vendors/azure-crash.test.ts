/**
 * @module Crash safety at Azure (its double), by the crash test every vendor runs
 * (test/support/vendor-crash.ts), with the unmodified SDKs in a real `cairn` process. Azure's
 * idempotency is the VM's name, derived from cairn's key: a create whose answer was lost is the
 * same PUT of the same name when sent again, and observe finds it by a GET of that name. The
 * double serves HTTPS; its certificate reaches cairn through CAIRN_VENDOR_CA_FILE, and the
 * service principal's bundle (Entra at the double too) through one environment variable.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAzureDouble, trustDoubleCertificate } from '../doubles/azure/server.js';
import { describeVendorCrashTest } from '../support/vendor-crash.js';

const SECRET = 'azure-crash-secret';
await trustDoubleCertificate(mkdtempSync(join(tmpdir(), 'cairn-azure-crash-ca-')));
const double = await startAzureDouble({ clientSecret: SECRET, actionMs: 300, latencyMs: 20, retryAfterSeconds: 0, slowAnswers: { operationIds: ['VirtualMachines_CreateOrUpdate'], ms: 400 } });

describeVendorCrashTest({
  vendor: 'azure',
  title: 'Azure',
  tokenEnv: 'AZURE_CREDENTIALS',
  token: JSON.stringify({ tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47', client_id: '1b7c5f1e-0c3c-4c58-9d7e-6b9a2f4c0e11', client_secret: SECRET, subscription_id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', authority_host: double.url }),
  regions: ['westeurope', 'northeurope', 'eastus'],
  image: 'debian-12',
  sizes: ['Standard_B1s', 'Standard_B2s'],
  start() {
    return Promise.resolve({
      ...double,
      held: () => double.vms().map((vm) => ({ name: vm.tags['cairn-name'] ?? vm.name, key: vm.tags['cairn-key'], size: vm.size, running: vm.provisioningState === 'Succeeded' && vm.power === 'running' })),
    });
  },
});
