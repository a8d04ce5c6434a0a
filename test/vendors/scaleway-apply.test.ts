/**
 * @module examples/vendors/scaleway, applied with the real CLI against the Scaleway double (its
 * Provider pointed at the double with `spec.endpoint`, its credentials a JSON bundle in the
 * variable): the Instances converge running, a resize goes through power off and on, a type
 * Scaleway lacks in the zone is refused naming the valid ones, and a delete leaves nothing.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCairn } from '../support/cairn-process.js';
import { SCALEWAY_TEST_PROJECT, startScalewayDouble, type ScalewayDouble } from '../doubles/scaleway.js';

const root = mkdtempSync(join(tmpdir(), 'cairn-scaleway-apply-'));
const dir = join(root, 'manifests');
const dataDir = join(root, 'state');
const KEY = 'scaleway-apply-key';
let double: ScalewayDouble;

function apply(...args: string[]): ReturnType<typeof runCairn> {
  const credentials = JSON.stringify({ secret_key: KEY, project_id: SCALEWAY_TEST_PROJECT });
  return runCairn([...args, '--data-dir', dataDir], { env: { SCALEWAY_CREDENTIALS: credentials, CAIRN_POLL_MS: '100' }, timeoutMs: 120_000 });
}

beforeAll(async () => {
  double = await startScalewayDouble({ token: KEY, actionMs: 100 });
  cpSync(join(REPO_ROOT, 'examples', 'vendors', 'scaleway'), dir, { recursive: true });
  const provider = join(dir, 'provider.yaml');
  writeFileSync(provider, `${readFileSync(provider, 'utf8')}  endpoint: ${double.url}\n`);
});
afterAll(async () => {
  expect(double.violations, 'requests or answers outside Scaleway’s document').toEqual([]);
  await double.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('examples/vendors/scaleway', () => {
  it('applies and converges: three Instances running at Scaleway, each tagged with its key', async () => {
    const result = await apply('apply', '-f', dir, '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Apply complete: 4 ready.');
    const servers = double.servers();
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
    expect(double.servers().map((s) => `${s.name}:${s.commercialType}:${s.state}`).sort()).toEqual(['web-ams:DEV1-S:running', 'web-par:DEV1-L:running', 'web-waw:DEV1-M:running']);

    writeFileSync(servers, readFileSync(servers, 'utf8').replace('size: DEV1-M', 'size: GP1-XS'));
    const refused = await apply('apply', '-f', dir, '--auto-approve', '--wait', '--timeout', '20s');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('scaleway: size "GP1-XS" is not offered in pl-waw-1; sizes there: DEV1-S, DEV1-M, DEV1-L, PLAY2-NANO');
    expect(double.calls.filter((c) => c.operationId === 'UpdateServer'), 'only the one resize that could be made was sent').toHaveLength(1);
    expect(double.servers()).toHaveLength(3);
  });

  it('deletes what it made: nothing left at the vendor', async () => {
    const result = await apply('delete', '-f', join(dir, 'servers.yaml'), '--auto-approve', '--wait');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(double.servers()).toEqual([]);
  });
});
