/**
 * @module `cairn reconcile KIND NAME` runs one reconcile of a stalled resource here (no serve
 * running), reports the vendor's refusal and exits 1; once the spec is fixed it reports it
 * ready and exits 0; an unknown resource is named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCairn } from '../../../test/support/cairn-process.js';

const root = mkdtempSync(join(tmpdir(), 'cairn-reconcile-cli-'));
const dataDir = join(root, 'state');
const env = { CAIRN_SANDBOX_PROVISION_MS: '0' };
afterAll(() => rmSync(root, { recursive: true, force: true }));

const manifest = (region: string): string => {
  const file = join(root, `stack-${region}.yaml`);
  writeFileSync(file, `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: sandbox }\nspec: { vendor: sandbox }\n---\napiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: web-1 }\nspec: { provider: sandbox, region: ${region}, size: small }\n`);
  return file;
};

describe('cairn reconcile', () => {
  it('reconciles a stalled server here and says why it fails, then that it is ready once fixed', async () => {
    expect((await runCairn(['apply', '-f', manifest('mars-1'), '--auto-approve', '--timeout', '20s', '--data-dir', dataDir], { env })).code).toBe(1);
    const stalled = await runCairn(['reconcile', 'server', 'web-1', '--timeout', '20s', '--data-dir', dataDir], { env });
    expect(stalled.code).toBe(1);
    expect(`${stalled.stdout}${stalled.stderr}`).toContain('mars-1');

    const missing = await runCairn(['reconcile', 'server', 'web-9', '--data-dir', dataDir], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Server/web-9 not found');

    expect((await runCairn(['apply', '-f', manifest('eu-1'), '--auto-approve', '--timeout', '20s', '--data-dir', dataDir], { env })).code).toBe(0);
    const fixed = await runCairn(['reconcile', 'server', 'web-1', '--timeout', '20s', '--data-dir', dataDir], { env });
    expect(fixed.stdout, fixed.stderr).toContain('Reconcile complete: 1 ready.');
    expect(fixed.code).toBe(0);
  });
});
