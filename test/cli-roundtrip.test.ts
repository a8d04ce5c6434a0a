/**
 * @module End to end through the real `cairn` executable: apply a stack to the in-process sandbox,
 * all Ready; change one field, plan shows exactly that change; apply; plan is empty; delete.
 * The sandbox cloud's own API is then asked what really exists.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxCloud } from '../src/sandbox-cloud/index.js';
import { runCairn } from './support/cairn-process.js';
import { writeStack } from './support/manifests.js';

let root: string;
let dataDir: string;
let manifests: string;
const env = { CAIRN_SANDBOX_PROVISION_MS: '200' };

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-e2e-'));
  dataDir = join(root, 'state');
  manifests = join(root, 'manifests');
  writeStack(manifests, { servers: 2, databases: 1, apps: 1 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What the sandbox cloud of the data dir holds, asked through its own API. */
async function vendorServers(): Promise<Array<{ name: string; size: string; status: string }>> {
  const cloud = await startSandboxCloud({ dataDir, port: 0 });
  try {
    const response = await fetch(`${cloud.url}/v1/servers`, { headers: { authorization: 'Bearer test' } });
    const body = (await response.json()) as { servers: Array<{ name: string; size: string; status: string }> };
    return body.servers;
  } finally {
    await cloud.close();
  }
}

describe('cairn apply / plan / get / delete', () => {
  it('validates the stack', async () => {
    const result = await runCairn(['validate', '-f', manifests]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('5 manifests valid');
  });

  it('plans five creates and exits 2 with --detailed-exitcode', async () => {
    const result = await runCairn(['plan', '-f', manifests, '--detailed-exitcode', '--data-dir', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('Plan: 5 to create, 0 to update, 0 to replace, 0 to delete.');
    expect(result.stdout).not.toContain('s3cr3t-value');
  });

  it('applies everything to Ready with live progress', async () => {
    const result = await runCairn(['apply', '-f', manifests, '--auto-approve', '--data-dir', dataDir], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Server\/web-1: provisioning/);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    const get = await runCairn(['get', 'servers', '-o', 'json', '--data-dir', dataDir]);
    const items = (JSON.parse(get.stdout) as { items: Array<{ metadata: { name: string }; status: { phase: string; conditions: Array<{ type: string; status: string }> } }> }).items;
    expect(items.map((i) => i.metadata.name)).toEqual(['web-1', 'web-2']);
    for (const item of items) {
      expect(item.status.phase).toBe('running');
      expect(item.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
    const app = JSON.parse((await runCairn(['get', 'app', 'app-1', '-o', 'json', '--data-dir', dataDir])).stdout) as { status: { phase: string; endpoints: { url: string } } };
    expect(app.status.phase).toBe('running');
    expect(app.status.endpoints.url).toMatch(/^http:\/\//);
    expect((await vendorServers()).map((s) => s.name).sort()).toEqual(['web-1', 'web-2']);
  });

  it('plans exactly one changed field, applies it at the vendor, then plans nothing', async () => {
    const file = join(manifests, 'servers.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/size: small/, 'size: medium'));
    const plan = await runCairn(['plan', '-f', manifests, '-o', 'json', '--detailed-exitcode', '--data-dir', dataDir]);
    expect(plan.code).toBe(2);
    const body = JSON.parse(plan.stdout) as { format_version: string; changes: Array<{ action: string; name: string; diff: unknown[] }> };
    expect(body.format_version).toBe('1.0');
    const changed = body.changes.filter((c) => c.action !== 'noop');
    expect(changed).toEqual([expect.objectContaining({ action: 'update', name: 'web-1', diff: [{ path: 'spec.size', before: 'small', after: 'medium', forces_replacement: false, sensitive: false }] })]);

    const apply = await runCairn(['apply', '-f', manifests, '--auto-approve', '--data-dir', dataDir], { env });
    expect(apply.code).toBe(0);
    expect((await vendorServers()).find((s) => s.name === 'web-1')?.size).toBe('medium');

    const again = await runCairn(['plan', '-f', manifests, '--detailed-exitcode', '--data-dir', dataDir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('apply with no changes still looks at the world: a server deleted at the vendor is created again', async () => {
    const cloud = await startSandboxCloud({ dataDir, port: 0 });
    try {
      const listed = (await (await fetch(`${cloud.url}/v1/servers`, { headers: { authorization: 'Bearer test' } })).json()) as { servers: Array<{ id: string; name: string }> };
      const web2 = listed.servers.find((s) => s.name === 'web-2');
      const gone = await fetch(`${cloud.url}/v1/servers/${web2?.id ?? ''}`, { method: 'DELETE', headers: { authorization: 'Bearer test' } });
      expect(gone.status).toBe(204);
    } finally {
      await cloud.close();
    }
    const apply = await runCairn(['apply', '-f', manifests, '--auto-approve', '--data-dir', dataDir], { env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('No changes to the desired state');
    expect((await vendorServers()).map((s) => s.name).sort()).toEqual(['web-1', 'web-2']);
  });

  it('refuses to apply without --auto-approve when stdin is not a terminal', async () => {
    writeFileSync(join(manifests, 'servers.yaml'), readFileSync(join(manifests, 'servers.yaml'), 'utf8').replace('size: medium', 'size: large'));
    const result = await runCairn(['apply', '-f', manifests, '--data-dir', dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to apply without --auto-approve');
    const get = JSON.parse((await runCairn(['get', 'server', 'web-1', '-o', 'json', '--data-dir', dataDir])).stdout) as { spec: { size: string } };
    expect(get.spec.size).toBe('medium');
  });

  it('deletes everything, dependents first, and the vendor holds nothing', async () => {
    const result = await runCairn(['delete', '-f', manifests, '--auto-approve', '--data-dir', dataDir], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Delete complete: 5 deleted.');
    expect(await vendorServers()).toEqual([]);
    const get = await runCairn(['get', 'servers', '--data-dir', dataDir]);
    expect(get.stdout).toContain('No Server resources found.');
  });
});
