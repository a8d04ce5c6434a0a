/**
 * @module examples/vendors/vultr, applied with the real CLI against the Vultr double (its
 * Provider pointed at the double with `spec.endpoint`): the instances converge, a resize is made
 * in place (a new plan on the running instance), a plan Vultr lacks is refused naming the valid
 * ones, and a delete leaves nothing at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startVultrDouble } from '../doubles/vultr.js';

const TOKEN = 'vultr-apply-token';
const setup = vendorApplySetup({ example: 'vultr', title: 'Vultr', env: { VULTR_API_KEY: TOKEN }, start: () => startVultrDouble({ token: TOKEN, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/vultr', () => {
  it('applies and converges: three instances at Vultr, each tagged with its key', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const instances = setup.double.instances();
    expect(instances.map((s) => `${s.label}:${s.region}:${s.plan}:${s.status}:${s.osId}`).sort()).toEqual([
      'web-ams:ams:vc2-1c-1gb:active:2136', 'web-ewr:ewr:vc2-1c-2gb:active:2136', 'web-fra:fra:vc2-1c-1gb:active:2136',
    ]);
    expect(instances.every((s) => s.tags.some((t) => t.startsWith('cairn-key:cairn-')) && s.tags.includes('managed-by:cairn'))).toBe(true);
  });

  it('resizes in place, and refuses a plan Vultr lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: vc2-1c-1gb', 'size: vc2-2c-4gb'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.instances().map((s) => `${s.label}:${s.plan}:${s.status}`).sort()).toEqual(['web-ams:vc2-1c-1gb:active', 'web-ewr:vc2-1c-2gb:active', 'web-fra:vc2-2c-4gb:active']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: vc2-1c-2gb', 'size: vc2-99c'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('vultr: size "vc2-99c" is not offered in ewr; sizes there: vc2-1c-1gb, vc2-1c-2gb, vc2-2c-4gb, vc2-4c-8gb, vhf-1c-1gb, vhf-2c-4gb');
    expect(setup.double.calls.filter((c) => c.operationId === 'update-instance'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.instances()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.instances()).toEqual([]);
  });
});
