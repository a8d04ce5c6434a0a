/**
 * @module examples/vendors/gcp, applied with the real CLI against the Google Cloud double (its
 * Provider pointed at the double with `spec.endpoint`, the service-account key in the example's
 * variable naming the double's token endpoint): the instances converge, a resize is made by stop
 * → setMachineType → start, a machine type the zone lacks is refused naming the valid ones, and
 * a delete leaves nothing at the vendor. The double is started first: the key names its URL.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startGcpDouble, testServiceAccountKey } from '../doubles/gcp/server.js';

const double = await startGcpDouble({ actionMs: 100 });
const setup = vendorApplySetup({ example: 'gcp', title: 'Google Cloud', env: { GCP_SERVICE_ACCOUNT_KEY: testServiceAccountKey(double.url) }, start: () => Promise.resolve(double) });
const { dir, apply } = setup;
/** The provider and its servers: the folder's database.yaml is applied by the vendor's databases test, through `cairn serve`. */
const SERVER_FILES = [join(dir, 'provider.yaml'), join(dir, 'servers.yaml')];

describe('examples/vendors/gcp', () => {
  it('applies and converges: three instances at Google Cloud, each labelled with its key', async () => {
    const result = await apply('apply', '-f', ...SERVER_FILES, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const instances = double.instances();
    expect(instances.map((s) => `${s.name}:${s.zone}:${s.machineType}:${s.status}:${s.sourceImage}`).sort()).toEqual([
      'web-b:europe-west1-b:e2-small:RUNNING:projects/debian-cloud/global/images/family/debian-12',
      'web-c:europe-west1-c:e2-small:RUNNING:projects/debian-cloud/global/images/family/debian-12',
      'web-us:us-central1-a:e2-medium:RUNNING:projects/debian-cloud/global/images/family/debian-12',
    ]);
    expect(instances.every((s) => s.labels['cairn-key']?.startsWith('cairn-') && s.labels['managed-by'] === 'cairn')).toBe(true);
  });

  it('resizes by stop, setMachineType and start, and refuses a machine type the zone lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('region: europe-west1-b\n  size: e2-small', 'region: europe-west1-b\n  size: n2-standard-2'));
    const resized = await apply('apply', '-f', ...SERVER_FILES, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(double.instances().map((s) => `${s.name}:${s.machineType}:${s.status}`).sort()).toEqual(['web-b:n2-standard-2:RUNNING', 'web-c:e2-small:RUNNING', 'web-us:e2-medium:RUNNING']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: e2-medium', 'size: c3-standard-8'));
    const refused = await apply('apply', '-f', ...SERVER_FILES, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('gcp: size "c3-standard-8" is not offered in us-central1-a; sizes there: e2-micro, e2-small, e2-medium, e2-standard-2, n2-standard-2, c3-standard-4');
    expect(double.calls.filter((c) => c.operationId === 'compute.instances.setMachineType'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(double.instances()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(double.instances()).toEqual([]);
  });
});
