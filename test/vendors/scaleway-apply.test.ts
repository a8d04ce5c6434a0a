/**
 * @module examples/vendors/scaleway, applied with the real CLI against the Scaleway double (its
 * Provider pointed at the double with `spec.endpoint`, its credentials a JSON bundle in the
 * variable): the Instances converge running, a resize goes through power off and on, a type
 * Scaleway lacks in the zone is refused naming the valid ones, and a delete leaves nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble } from '../doubles/scaleway.js';

const KEY = 'scaleway-apply-key';
const CREDENTIALS_JSON = JSON.stringify({ secret_key: KEY, project_id: SCALEWAY_TEST_PROJECT });
const setup = vendorApplySetup({ example: 'scaleway', title: 'Scaleway', env: { SCALEWAY_CREDENTIALS: CREDENTIALS_JSON }, start: () => startScalewayDouble({ token: KEY, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/scaleway', () => {
  it('applies and converges: three Instances running at Scaleway, each tagged with its key', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const servers = setup.double.servers();
    expect(servers.map((s) => `${s.name}:${s.zone}:${s.commercialType}:${s.state}:${s.image}`).sort()).toEqual([
      'web-ams:nl-ams-1:DEV1-S:running:debian_bookworm', 'web-par:fr-par-1:DEV1-S:running:debian_bookworm', 'web-waw:pl-waw-1:DEV1-M:running:debian_bookworm',
    ]);
    expect(servers.every((s) => s.tags.some((t) => t.startsWith('cairn-key=cairn-')) && s.tags.includes('managed-by=cairn'))).toBe(true);
  });

  it('resizes through power off and on, and refuses a type Scaleway lacks in the zone, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: DEV1-S', 'size: DEV1-L'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.servers().map((s) => `${s.name}:${s.commercialType}:${s.state}`).sort()).toEqual(['web-ams:DEV1-S:running', 'web-par:DEV1-L:running', 'web-waw:DEV1-M:running']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: DEV1-M', 'size: GP1-XS'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('scaleway: size "GP1-XS" is not offered in pl-waw-1; sizes there: DEV1-S, DEV1-M, DEV1-L, PLAY2-NANO');
    expect(setup.double.calls.filter((c) => c.operationId === 'UpdateServer'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.servers()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.servers()).toEqual([]);
  });
});
