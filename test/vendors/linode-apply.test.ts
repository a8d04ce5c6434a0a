/**
 * @module examples/vendors/linode, applied with the real CLI against the Linode double (its
 * Provider pointed at the double with `spec.endpoint`): the Linodes converge with their labels
 * and tags, a resize is made in place (a new type on the same Linode), a type Linode lacks is
 * refused naming the valid ones, and a delete leaves nothing at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startLinodeDouble } from '../doubles/linode.js';
import { storedBytes } from '../support/store-engine.js';

const TOKEN = 'linode-apply-token';
const setup = vendorApplySetup({ example: 'linode', title: 'Linode', env: { LINODE_TOKEN: TOKEN }, start: () => startLinodeDouble({ token: TOKEN, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/linode', () => {
  it('applies and converges: three Linodes, each tagged with its key, none with a password kept by cairn, and a managed PostgreSQL', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    expect(setup.double.databases().map((db) => `${db.engine}:${db.region}:${db.type}:${db.status}`)).toEqual(['postgresql/16:us-east:g6-nanode-1:active']);
    expect(setup.double.databases()[0]?.label).toMatch(/^orders-db-[0-9a-f]{12}$/);
    const linodes = setup.double.linodes();
    expect(linodes.map((l) => `${l.label}:${l.region}:${l.type}:${l.status}:${l.image}`).sort()).toEqual([
      'web-ewr:us-east:g6-standard-1:running:linode/debian12', 'web-fra:eu-central:g6-nanode-1:running:linode/debian12', 'web-lon:eu-west:g6-nanode-1:running:linode/debian12',
    ]);
    expect(linodes.every((l) => l.tags.some((t) => t.startsWith('cairn-key')) && l.tags.includes('managed-by:cairn'))).toBe(true);
    const stored = storedBytes(setup.dataDir).toString('latin1');
    expect(stored.length).toBeGreaterThan(0);
    for (const l of linodes) expect(stored.includes(l.rootPassword), `root password of ${l.label} in cairn's store`).toBe(false);
  });

  it('resizes in place, and refuses a type Linode lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('region: eu-central\n  size: g6-nanode-1', 'region: eu-central\n  size: g6-standard-2'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.linodes().map((l) => `${l.label}:${l.type}:${l.status}`).sort()).toEqual(['web-ewr:g6-standard-1:running', 'web-fra:g6-standard-2:running', 'web-lon:g6-nanode-1:running']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: g6-standard-1', 'size: g6-huge-99'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('linode: size "g6-huge-99" is not offered in us-east; sizes there: g6-nanode-1, g6-standard-1, g6-standard-2, g6-standard-4, g6-dedicated-2, g7-highmem-1');
    expect(setup.double.calls.filter((c) => c.operationId === 'post-resize-linode-instance'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.linodes()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor (the managed database without a final backup, which would go with it at Linode)', async () => {
    const database = join(dir, 'database.yaml');
    writeFileSync(database, readFileSync(database, 'utf8').replace('  labels: { team: shop }', '  labels: { team: shop }\n  annotations: { cairn.dev/skip-final-backup: "true" }'));
    const annotated = await apply('apply', '-f', database, '--auto-approve', '--wait');
    expect(annotated.code, annotated.stdout + annotated.stderr).toBe(0);
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), database, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.linodes()).toEqual([]);
    expect(setup.double.databases()).toEqual([]);
  });
});
