/**
 * @module examples/vendors/exoscale, applied with the real CLI against the Exoscale double (its
 * Provider pointed at the double with `spec.endpoint`, the key and secret as a JSON bundle in the
 * environment): the instances and the managed PostgreSQL converge, a resize stops, scales and
 * starts the instance, a size Exoscale lacks is refused naming the valid ones, and a delete (the
 * database's with cairn.dev/skip-final-backup) leaves nothing at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startExoscaleDouble } from '../doubles/exoscale.js';

const KEY = 'EXOapplykey';
const SECRET = 'exoscale-apply-secret';
const setup = vendorApplySetup({ example: 'exoscale', title: 'Exoscale', env: { EXOSCALE_CREDENTIALS: JSON.stringify({ api_key: KEY, api_secret: SECRET }) }, start: () => startExoscaleDouble({ token: KEY, secret: SECRET, actionMs: 100 }) });
const { dir, apply } = setup;

describe('examples/vendors/exoscale', () => {
  it('applies and converges: three instances at Exoscale, each labelled with its key, and a managed PostgreSQL', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    expect(setup.double.pgServices().map((s) => `${s.plan}:${s.version}:${s.state}:${s.adminUser}`)).toEqual(['hobbyist-2:16:running:cairn']);
    const instances = setup.double.instances();
    expect(instances.map((s) => `${s.name}:${s.labels['cairn-zone']}:${s.size}:${s.state}:${s.diskSize}`).sort()).toEqual([
      'web-fra:de-fra-1:standard.small:running:10', 'web-gva:ch-gva-2:standard.small:running:10', 'web-vie:at-vie-1:standard.medium:running:10',
    ]);
    expect(instances.every((s) => s.labels['cairn-key']?.startsWith('cairn-') && s.labels['managed-by'] === 'cairn')).toBe(true);
  });

  it('resizes by stop, scale and start, and refuses a size Exoscale lacks, naming the valid ones', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: standard.small', 'size: standard.medium'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.instances().map((s) => `${s.name}:${s.size}:${s.state}`).sort()).toEqual(['web-fra:standard.small:running', 'web-gva:standard.medium:running', 'web-vie:standard.medium:running']);
    expect(setup.double.calls.filter((c) => c.operationId === 'scale-instance')).toHaveLength(1);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: standard.small', 'size: standard.colossal'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('exoscale: size "standard.colossal" is not offered in de-fra-1; sizes there: standard.micro, standard.tiny, standard.small, standard.medium, cpu.large');
    expect(setup.double.calls.filter((c) => c.operationId === 'scale-instance'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.instances()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor (the managed database without a final backup, which Exoscale cannot take on demand)', async () => {
    const database = join(dir, 'database.yaml');
    writeFileSync(database, readFileSync(database, 'utf8').replace('  labels: { team: shop }', '  labels: { team: shop }\n  annotations: { cairn.dev/skip-final-backup: "true" }'));
    const annotated = await apply('apply', '-f', database, '--auto-approve', '--wait');
    expect(annotated.code, annotated.stdout + annotated.stderr).toBe(0);
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), database, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.instances()).toEqual([]);
    expect(setup.double.pgServices()).toEqual([]);
  });
});
