/**
 * @module examples/vendors/tencent, applied with the real CLI against the Tencent Cloud double
 * (its Provider pointed at the double with `spec.endpoint`, the SecretId and SecretKey as a JSON
 * bundle in the environment): the instances and a TencentDB for PostgreSQL converge, a resize stops the instance, changes its
 * type and starts it again, a type a zone does not sell is refused naming the ones it does, and a
 * delete (the database's without a final backup, which cairn cannot take there) leaves nothing at the vendor.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vendorApplySetup } from '../support/vendor-apply.js';
import { startTencentDouble, TENCENT_TEST_SECRET_ID } from '../doubles/tencent/index.js';

const SECRET_KEY = 'tencent-apply-secret-key';
const setup = vendorApplySetup({
  example: 'tencent',
  title: 'Tencent Cloud',
  env: { TENCENTCLOUD_CREDENTIALS: JSON.stringify({ secret_id: TENCENT_TEST_SECRET_ID, secret_key: SECRET_KEY }) },
  start: () => startTencentDouble({ token: SECRET_KEY, actionMs: 100 }),
});
const { dir, apply } = setup;

describe('examples/vendors/tencent', () => {
  it('applies and converges: three instances and a managed PostgreSQL at Tencent Cloud, each tagged with its key', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    const instances = setup.double.instances();
    expect(instances.map((i) => `${i.name}:${i.zone}:${i.type}:${i.state}:${i.imageId}`).sort()).toEqual([
      'web-fra:eu-frankfurt-1:S5.SMALL2:RUNNING:img-487zeit5', 'web-gz:ap-guangzhou-3:S5.SMALL1:RUNNING:img-487zeit5', 'web-sg:ap-singapore-1:S5.SMALL1:RUNNING:img-487zeit5',
    ]);
    expect(instances.every((i) => i.tags['cairn-key']?.startsWith('cairn-') && i.tags['managed-by'] === 'cairn')).toBe(true);
    expect(setup.double.databases().map((i) => `${i.name}:${i.zone}:${i.spec}:${i.version}:${i.status}:${i.tags['managed-by']}`)).toEqual(['orders-db:ap-guangzhou-3:pg.it.small2:16:running:cairn']);
  });

  it('resizes through stop, ResetInstancesType and start, and refuses a type the zone does not sell, naming the ones it does', async () => {
    const servers = join(dir, 'servers.yaml');
    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: S5.SMALL2', 'size: S5.MEDIUM4'));
    const resized = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(resized.code, resized.stdout + resized.stderr).toBe(0);
    expect(setup.double.instances().map((i) => `${i.name}:${i.type}:${i.state}`).sort()).toEqual(['web-fra:S5.MEDIUM4:RUNNING', 'web-gz:S5.SMALL1:RUNNING', 'web-sg:S5.SMALL1:RUNNING']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('region: ap-singapore-1\n  size: S5.SMALL1', 'region: ap-singapore-1\n  size: SA2.MEDIUM4'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('tencent: size "SA2.MEDIUM4" is not offered in ap-singapore-1; sizes there: S5.SMALL1, S5.SMALL2, S5.MEDIUM4, S5.LARGE8');
    expect(setup.double.calls.filter((c) => c.operationId === 'ResetInstancesType'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(setup.double.instances()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor (the managed database without a final backup, which cairn cannot take there)', async () => {
    const database = join(dir, 'database.yaml');
    writeFileSync(database, readFileSync(database, 'utf8').replace('  labels: { team: shop }', '  labels: { team: shop }\n  annotations: { cairn.dev/skip-final-backup: "true" }'));
    const annotated = await apply('apply', '-f', database, '--auto-approve', '--wait');
    expect(annotated.code, annotated.stdout + annotated.stderr).toBe(0);
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), database, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(setup.double.instances()).toEqual([]);
    expect(setup.double.databases()).toEqual([]);
  });
});
