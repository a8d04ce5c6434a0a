/**
 * @module examples/vendors/oci, applied with the real CLI against the OCI double (its Provider
 * pointed at the double with `spec.endpoint`, the API signing key as a JSON bundle in the
 * environment): the instances converge, each tagged with its key; a resize is UpdateInstance to
 * the new shape; a shape OCI lacks in an AD is refused naming the ones there; a delete leaves
 * nothing at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { ociDoubleCredentials, startOciDouble } from '../doubles/oci/server.js';

const setup = vendorApplySetup({ example: 'oci', title: 'OCI', env: { OCI_CREDENTIALS: JSON.stringify(ociDoubleCredentials()) }, start: () => startOciDouble({ actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/oci', () => {
  it('applies and converges: three instances at OCI, one per AD, each tagged with its key', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const instances = setup.double.instances();
    expect(instances.map((s) => `${s.displayName}:${s.availabilityDomain}:${s.shape}:${s.state}`).sort()).toEqual([
      'web-ad1:Uocm:EU-FRANKFURT-1-AD-1:VM.Standard2.1:RUNNING', 'web-ad2:Uocm:EU-FRANKFURT-1-AD-2:VM.Standard2.1:RUNNING', 'web-ad3:Uocm:EU-FRANKFURT-1-AD-3:VM.Standard.E4.Flex:RUNNING',
    ]);
    expect(instances.every((s) => s.freeformTags['cairn-key']?.startsWith('cairn-') && s.freeformTags['managed-by'] === 'cairn')).toBe(true);
  });

  it('resizes by UpdateInstance, and refuses a shape OCI lacks in the AD, naming the ones there', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: VM.Standard2.1', 'size: VM.Standard2.2'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.instances().map((s) => `${s.displayName}:${s.shape}:${s.state}`).sort()).toEqual(['web-ad1:VM.Standard2.2:RUNNING', 'web-ad2:VM.Standard2.1:RUNNING', 'web-ad3:VM.Standard.E4.Flex:RUNNING']);
    expect(setup.double.calls.filter((c) => c.operationId === 'UpdateInstance')).toHaveLength(1);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: VM.Standard2.1', 'size: VM.DenseIO2.8'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('oci: size "VM.DenseIO2.8" is not offered in eu-frankfurt-1-ad-2; sizes there: VM.Standard2.1, VM.Standard2.2, VM.Standard.E4.Flex, VM.Standard.A1.Flex');
    expect(setup.double.calls.filter((c) => c.operationId === 'UpdateInstance'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.instances()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.instances().filter((s) => s.state !== 'TERMINATING')).toEqual([]);
  });
});
