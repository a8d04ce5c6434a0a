/**
 * @module examples/vendors/atlas, applied with the real CLI against the Atlas double (its
 * Provider pointed at the double with `spec.endpoint`, the service account and project as a JSON
 * bundle in the environment): the managed MongoDB converges to one IDLE cluster with its user, a
 * resize to M20 is made in place, a size Atlas lacks in the region is refused naming the valid
 * ones, and a delete takes the final snapshot first and leaves no cluster.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAtlasDouble, type AtlasDouble } from '../doubles/atlas.js';
import { vendorApplySetup } from '../support/vendor-apply.js';

const SECRET = 'atlas-apply-secret';
const PROJECT = '64b1f0c0ffee0ddba11c0de1';
const setup = vendorApplySetup<AtlasDouble>({
  example: 'atlas', title: 'MongoDB Atlas', env: { ATLAS_CREDENTIALS: JSON.stringify({ clientId: 'mdb_sa_id_test', clientSecret: SECRET, projectId: PROJECT }) },
  start: () => startAtlasDouble({ token: SECRET, actionMs: 200 }),
});
const { dir, apply } = setup;
const database = join(dir, 'database.yaml');

describe('examples/vendors/atlas', () => {
  it('applies and converges: one replica set at Atlas with its database user, resized in place; a size Atlas lacks is refused', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.clusters().map((c) => `${c.provider}:${c.region}:${c.instanceSize}:${c.nodeCount}:${c.version}:${c.state}`)).toEqual(['AWS:EU_CENTRAL_1:M10:3:7.0:IDLE']);
    expect(setup.double.users().map((u) => u.username)).toEqual(setup.double.clusters().map((c) => c.name));

    writeFileSync(database, readFileSync(database, 'utf8').replace('size: M10', 'size: M20'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.clusters().map((c) => `${c.instanceSize}:${c.state}`)).toEqual(['M20:IDLE']);

    writeFileSync(database, readFileSync(database, 'utf8').replace('size: M20', 'size: M40'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('atlas: instance size "M40" is not offered in AWS:EU_CENTRAL_1; sizes there: M10, M20, M30');
    expect(setup.double.clusters().map((c) => c.instanceSize)).toEqual(['M20']);
  });

  it('deletes with a final snapshot first, leaving the snapshot and no cluster', async () => {
    writeFileSync(database, readFileSync(database, 'utf8').replace('size: M40', 'size: M20'));
    const result = await apply('delete', '-f', database, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(setup.double.clusters()).toEqual([]);
    expect(setup.double.snapshots()).toHaveLength(1);
  });
});
