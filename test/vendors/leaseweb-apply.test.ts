/**
 * @module examples/vendors/leaseweb, applied with the real CLI against the Leaseweb double (its
 * Provider pointed at the double with `spec.endpoint`): the instances converge with name and key
 * in their reference, a resize to a larger type is made in place, one to a smaller type is
 * refused before it is sent (Leaseweb only upgrades in place), and a delete terminates them all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReference } from '../../src/drivers/leaseweb/reference.js';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startLeasewebDouble } from '../doubles/leaseweb.js';

const KEY = 'leaseweb-apply-key';
const setup = vendorApplySetup({ example: 'leaseweb', title: 'Leaseweb', env: { LEASEWEB_API_KEY: KEY }, start: () => startLeasewebDouble({ token: KEY, actionMs: 100 }) });
const { dir, apply } = setup;

function held(): string[] {
  return setup.double.instances().filter((i) => i.state !== 'DESTROYED' && i.state !== 'DESTROYING').map((i) => `${readReference(i.reference).name}:${i.region}:${i.type}:${i.state}:${i.imageId}`).sort();
}

describe('examples/vendors/leaseweb', () => {
  it('applies and converges: three hourly instances, each with its name and key in the reference', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    expect(held()).toEqual(['web-ams:eu-west-3:lsw.m3.large:RUNNING:DEBIAN_12_64BIT', 'web-fra:eu-central-1:lsw.m3.large:RUNNING:DEBIAN_12_64BIT', 'web-iad:us-east-1:lsw.c3.large:RUNNING:DEBIAN_12_64BIT']);
    expect(setup.double.instances().every((i) => readReference(i.reference).key?.startsWith('cairn-') && i.contract.type === 'HOURLY')).toBe(true);
  });

  it('resizes to a larger type in place, and refuses a smaller one before sending it', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('region: eu-west-3\n  size: lsw.m3.large', 'region: eu-west-3\n  size: lsw.m3.xlarge'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(held()).toEqual(['web-ams:eu-west-3:lsw.m3.xlarge:RUNNING:DEBIAN_12_64BIT', 'web-fra:eu-central-1:lsw.m3.large:RUNNING:DEBIAN_12_64BIT', 'web-iad:us-east-1:lsw.c3.large:RUNNING:DEBIAN_12_64BIT']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('region: eu-central-1\n  size: lsw.m3.large', 'region: eu-central-1\n  size: lsw.c3.large'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('Leaseweb changes an instance only to the types it lists for it');
    expect(setup.double.calls.filter((c) => c.operationId === 'updateInstance'), 'only the upgrade was sent').toHaveLength(1);
    expect(held()).toHaveLength(3);
  });

  it('deletes what it made: every instance terminated', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(held()).toEqual([]);
  });
});
