/**
 * @module `cairn plan --refresh`, like `terraform plan` showing changes made outside Terraform:
 * against a separate sandbox cloud, a server resized at the vendor shows as drift cairn will put
 * back (exit 2 with --detailed-exitcode), one powered off with self-heal off as reported only,
 * in text, Markdown and JSON; and looking changes nothing at the vendor.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startSandboxCloudProcess, type SandboxCloudProcess } from './support/cairn-process.js';
import { inventory } from './support/vendor-inventory.js';

let root: string;
let cloud: SandboxCloudProcess;
let manifests: string;
let dataDir: string;

const atVendor = (id: string, path: string, body: unknown, method = 'POST'): Promise<Response> =>
  fetch(`${cloud.url}/v1/servers/${id}${path}`, { method, headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: JSON.stringify(body) });
const idOf = async (name: string): Promise<string> => (await inventory(cloud.url)).servers.find((s) => s.name === name)?.id ?? '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-refresh-'));
  cloud = await startSandboxCloudProcess(['--data-dir', join(root, 'cloud'), '--provision-ms', '50']);
  manifests = join(root, 'manifests.yaml');
  dataDir = join(root, 'state');
  writeFileSync(manifests, [
    `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n  endpoint: ${cloud.url}\n`,
    `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-1\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n`,
    `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-2\n  annotations:\n    cairn.dev/self-heal: "false"\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n`,
  ].join('---\n'));
  const applied = await runCairn(['apply', '-f', manifests, '--auto-approve', '--data-dir', dataDir]);
  if (applied.code !== 0) throw new Error(`apply failed: ${applied.stdout}${applied.stderr}`);
}, 90_000);

afterAll(async () => {
  await cloud.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('cairn plan --refresh', () => {
  it('says the world matches when nothing changed outside cairn', async () => {
    const result = await runCairn(['plan', '-f', manifests, '--refresh', '--detailed-exitcode', '--data-dir', dataDir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('No changes outside cairn');
  });

  it('shows a resize and a power-off made at the vendor, and whether cairn puts them back', async () => {
    await atVendor(await idOf('web-1'), '', { size: 'large' }, 'PATCH');
    await atVendor(await idOf('web-2'), '/actions', { type: 'power_off' });
    const text = await runCairn(['plan', '-f', manifests, '--refresh', '--detailed-exitcode', '--data-dir', dataDir]);
    expect(text.code, text.stderr).toBe(2);
    expect(text.stdout).toContain('Objects have changed outside of cairn:\n\n  ~ Server/web-1 (cairn puts it back)\n      size: large → small\n  ~ Server/web-2 (self-heal is off: reported only)\n      power: off → on\n');

    const markdown = await runCairn(['plan', '-f', manifests, '--refresh', '-o', 'markdown', '--data-dir', dataDir]);
    expect(markdown.stdout).toContain('### Changed outside cairn');
    expect(markdown.stdout).toContain('| `Server/web-1` | `size: large → small` | cairn puts it back |');

    const json = JSON.parse((await runCairn(['plan', '-f', manifests, '--refresh', '-o', 'json', '--data-dir', dataDir])).stdout) as { drift: unknown[] };
    expect(json.drift).toEqual([
      { kind: 'Server', namespace: 'default', name: 'web-1', changes: ['size: large → small'], self_heal: true },
      { kind: 'Server', namespace: 'default', name: 'web-2', changes: ['power: off → on'], self_heal: false },
    ]);

    // Looking changed nothing: the vendor still has what was done behind cairn's back.
    const world = (await inventory(cloud.url)).servers;
    expect(world.find((s) => s.name === 'web-1')?.size).toBe('large');
    expect(world.find((s) => s.name === 'web-2')?.status).toBe('stopped');
  });

  it('shows a server deleted at the vendor', async () => {
    const id = await idOf('web-1');
    await fetch(`${cloud.url}/v1/servers/${id}`, { method: 'DELETE', headers: { authorization: 'Bearer t' } });
    const result = await runCairn(['plan', '-f', manifests, '--refresh', '--data-dir', dataDir]);
    expect(result.stdout).toMatch(new RegExp(`~ Server/web-1 \\(cairn puts it back\\)\\n {6}Server ${id} no longer exists at sandbox`));
  });
});
