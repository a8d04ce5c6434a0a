/**
 * @module `cairn import KIND NAME --id VENDOR_ID`: a recorded server cairn could not create yet
 * (its provider had no credentials) adopts a server made at the vendor beforehand — one server at
 * the vendor, resized to the manifest — and the refusals name why: an unknown resource, a kind
 * that cannot be imported, a resource that already has an id, one owned by a git source.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../store/store.js';
import { runCairn, startSandboxCloudProcess, type SandboxCloudProcess } from '../../../test/support/cairn-process.js';
import { inventory } from '../../../test/support/vendor-inventory.js';

const TOKEN = 'import-test-token';
let root: string;
let dataDir: string;
let cloud: SandboxCloudProcess;
let manifests: string;
let madeById: string;
const withToken = { CAIRN_SANDBOX_PROVISION_MS: '0', CAIRN_TEST_IMPORT_TOKEN: TOKEN };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-import-cli-'));
  dataDir = join(root, 'state');
  cloud = await startSandboxCloudProcess(['--data-dir', join(root, 'cloud'), '--provision-ms', '50', '--token', TOKEN]);
  const made = await fetch(`${cloud.url}/v1/servers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'legacy', region: 'eu-1', size: 'small', image: 'debian-12' }),
  });
  madeById = ((await made.json()) as { server: { id: string } }).server.id;
  manifests = join(root, 'stack.yaml');
  writeFileSync(manifests, [
    `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: sandbox }\nspec: { vendor: sandbox, endpoint: "${cloud.url}", credentialsRef: { env: CAIRN_TEST_IMPORT_TOKEN } }\n`,
    'apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: legacy }\nspec: { provider: sandbox, region: eu-1, size: medium }\n',
  ].join('---\n'));
  // Without the token in its environment the provider stalls, so the server is recorded but never created.
  const applied = await runCairn(['apply', '-f', manifests, '--auto-approve', '--timeout', '5s', '--data-dir', dataDir], { env: { CAIRN_SANDBOX_PROVISION_MS: '0' } });
  if (applied.code !== 1) throw new Error(`apply should have failed for want of credentials: ${applied.stdout}${applied.stderr}`);
}, 90_000);

afterAll(async () => {
  await cloud.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('cairn import', () => {
  it('adopts the existing server under the recorded one: one server at the vendor, resized to the manifest', async () => {
    expect((await inventory(cloud.url, TOKEN)).servers.map((s) => s.id)).toEqual([madeById]);
    const result = await runCairn(['import', 'server', 'legacy', '--id', madeById, '--timeout', '30s', '--data-dir', dataDir], { env: withToken });
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(`Server/legacy: cairn.dev/external-id set to ${madeById}`);
    expect(result.stdout).toContain('Import complete: 1 ready.');
    const servers = (await inventory(cloud.url, TOKEN)).servers.filter((s) => s.status !== 'deleted');
    expect(servers.map((s) => [s.id, s.size])).toEqual([[madeById, 'medium']]);

    const got = await runCairn(['get', 'server', 'legacy', '-o', 'json', '--data-dir', dataDir]);
    const item = JSON.parse(got.stdout) as { metadata: { annotations: Record<string, string> }; status: { externalId: string; phase: string } };
    expect(item.status).toMatchObject({ externalId: madeById, phase: 'running' });
    expect(item.metadata.annotations['cairn.dev/external-id']).toBe(madeById);
  });

  it('cairn plan shows a manifest annotated with an id as an import, a change for --detailed-exitcode', async () => {
    const file = join(root, 'annotated.yaml');
    writeFileSync(file, `apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: adopted, annotations: { cairn.dev/external-id: ${madeById} } }\nspec: { provider: sandbox, region: eu-1, size: small }\n`);
    const json = await runCairn(['plan', '-f', file, '-o', 'json', '--detailed-exitcode', '--data-dir', dataDir]);
    expect(json.code, json.stderr).toBe(2);
    const plan = JSON.parse(json.stdout) as { changes: Array<{ action: string; name: string; external_id?: string }>; summary: Record<string, number> };
    expect(plan.changes.map((c) => [c.action, c.name, c.external_id])).toEqual([['import', 'adopted', madeById]]);
    expect(plan.summary).toMatchObject({ create: 0, import: 1 });
    const text = await runCairn(['plan', '-f', file, '--data-dir', dataDir]);
    expect(text.stdout).toContain(`Server/adopted will be imported (vendor id ${madeById})`);
  });

  it('refuses a resource that already has a vendor id, naming it', async () => {
    const result = await runCairn(['import', 'server', 'legacy', '--id', 'another-id', '--data-dir', dataDir], { env: withToken });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Server/legacy already has vendor id ${madeById}`);
  });

  it('refuses an unknown resource and a kind that cannot be imported', async () => {
    const missing = await runCairn(['import', 'server', 'nope', '--id', 'x', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Server/nope not found');
    const provider = await runCairn(['import', 'provider', 'sandbox', '--id', 'x', '--data-dir', dataDir]);
    expect(provider.code).toBe(1);
    expect(provider.stderr).toContain('a Provider cannot be imported');
  });

  it('sends a git-sourced resource back to git, and changes nothing', async () => {
    const store = Store.open(dataDir);
    try {
      store.resources.apply('default', 'git:infra', [{ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'from-git' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } }]);
    } finally {
      store.close();
    }
    const result = await runCairn(['import', 'server', 'from-git', '--id', 'x', '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Server/from-git comes from git source infra: put the annotation cairn.dev/external-id: "x" on it in git');
    const after = Store.open(dataDir);
    try {
      expect(after.resources.find('default', { kind: 'Server', namespace: 'default', name: 'from-git' })?.annotations['cairn.dev/external-id']).toBeUndefined();
    } finally {
      after.close();
    }
  });
});
