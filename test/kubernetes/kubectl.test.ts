/**
 * @module The real kubectl (upstream v1.32, see ../support/kubectl-binary.ts) against `cairn serve --tls`, no cluster: apply -f
 * of examples/kubernetes/resources, get (table, -o yaml, -o json, -w), describe, explain, diff,
 * patch and edit, a stale replace refused, server-side apply, delete, bad input, a wrong token
 * refused; and resources created through the REST API listed by kubectl.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startCairnForKubectl, type CairnForKubectl } from '../support/kubectl-against-cairn.js';

let cairn: CairnForKubectl;
let scratch: string;

beforeAll(async () => {
  cairn = await startCairnForKubectl();
  scratch = mkdtempSync(join(tmpdir(), 'cairn-kubectl-files-'));
}, 60_000);

afterAll(async () => {
  await cairn?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

const WEB_3 = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-3\n  labels:\n    team: ops\nspec:\n  provider: sandbox\n  region: ap-1\n  size: small\n';

describe('kubectl against cairn', () => {
  it('is refused with a wrong token', async () => {
    const result = await cairn.kubectl(['get', 'servers', '--token', 'not-a-token']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('You must be logged in to the server');
  });

  it('applies the examples and waits for them to be Ready', async () => {
    const applied = await cairn.kubectl(['apply', '-f', 'examples/kubernetes/resources/']);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'app.cairn.dev/shop created', 'database.cairn.dev/shop-db created', 'provider.cairn.dev/sandbox created',
      'server.cairn.dev/web-1 created', 'server.cairn.dev/web-2 created',
    ]);
    const waited = await cairn.kubectl(['wait', '--for=condition=Ready', 'servers/web-1', 'servers/web-2', 'databases/shop-db', 'apps/shop', '--timeout=60s']);
    expect(waited.stderr).toBe('');
    expect(waited.stdout).toContain('server.cairn.dev/web-1 condition met');
  });

  it('gets tables, YAML and JSON', async () => {
    const table = await cairn.kubectl(['get', 'servers']);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'STATUS', 'READY', 'REGION', 'SIZE', 'IPV4', 'AGE']);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 5))).toEqual([['web-1', 'running', 'True', 'eu-1', 'small'], ['web-2', 'running', 'True', 'us-1', 'medium']]);
    const all = await cairn.kubectl(['get', 'cairn', '-o', 'name']);
    expect(all.stdout.split('\n').filter(Boolean)).toHaveLength(5);
    const yaml = parse((await cairn.kubectl(['get', 'server', 'web-1', '-o', 'yaml'])).stdout) as { metadata: Record<string, unknown>; status: { phase: string; endpoints: { ipv4: string } } };
    expect(yaml.metadata).toMatchObject({ name: 'web-1', namespace: 'default', finalizers: ['cairn.dev/finalizer'], generation: 1 });
    expect(yaml.status.phase).toBe('running');
    const json = JSON.parse((await cairn.kubectl(['get', 'databases', '-o', 'json'])).stdout) as { items: Array<{ status: { endpoints: { port: number } } }> };
    expect(json.items[0]?.status.endpoints.port).toBeGreaterThan(0);
  });

  it('lists resources the REST API created (as curl would) next to those kubectl created', async () => {
    const posted = await cairn.https('POST', '/api/v1/manifests', { contentType: 'application/yaml', text: 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: from-curl\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n' });
    expect(posted.status).toBe(200);
    const names = await cairn.kubectl(['get', 'servers', '-o', 'name']);
    expect(names.stdout).toContain('server.cairn.dev/from-curl');
    const rest = JSON.parse((await cairn.https('GET', '/api/v1/servers')).text) as { items: Array<{ name: string }> };
    expect(rest.items.map((s) => s.name)).toEqual(expect.arrayContaining(['web-1', 'web-2', 'from-curl']));
  });

  it('describes with the reconciler\'s events, and explains fields from the schemas', async () => {
    const described = await cairn.kubectl(['describe', 'server', 'web-1']);
    expect(described.stdout).toMatch(/Events:\s+Type\s+Reason/);
    expect(described.stdout).toMatch(/Normal\s+Created/);
    const explained = await cairn.kubectl(['explain', 'servers.spec.size']);
    expect(explained.stdout).toContain('The vendor\'s size slug');
  });

  it('diffs a changed manifest, and shows no diff for the applied one', async () => {
    const same = await cairn.kubectl(['diff', '-f', 'examples/kubernetes/resources/servers.yaml']);
    expect(same.code).toBe(0);
    const changed = file('servers.yaml', WEB_3.replace('web-3', 'web-1').replace('ap-1', 'eu-1').replace('team: ops', 'team: shop').replace('size: small', 'size: large'));
    const diff = await cairn.kubectl(['diff', '-f', changed]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain('+  size: large');
    expect((await cairn.kubectl(['get', 'server', 'web-1', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('small');
  });

  it('watches a change as it happens', async () => {
    const watch = cairn.spawnKubectl(['get', 'servers', '-w', '--output-watch-events']);
    let seen = '';
    watch.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    try {
      for (let i = 0; i < 100 && !seen.includes('web-2'); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      const patched = await cairn.kubectl(['patch', 'server', 'web-2', '--type', 'merge', '-p', '{"spec":{"size":"large"}}']);
      expect(patched.stdout).toContain('server.cairn.dev/web-2 patched');
      for (let i = 0; i < 100 && !/MODIFIED\s+web-2\s+\S+\s+\S+\s+us-1\s+large/.test(seen); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toMatch(/MODIFIED\s+web-2\s+\S+\s+\S+\s+us-1\s+large/);
    } finally {
      watch.kill('SIGTERM');
    }
  });

  it('patches with a JSON patch, edits, and refuses a replace at a stale resourceVersion', async () => {
    const json = await cairn.kubectl(['patch', 'server', 'web-2', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/size","value":"medium"}]']);
    expect(json.stdout).toContain('patched');
    const edited = await cairn.kubectl(['edit', 'server', 'web-2'], { env: { KUBE_EDITOR: 'sed -i s/size:\\ medium/size:\\ small/' } });
    expect(edited.stdout).toContain('server.cairn.dev/web-2 edited');
    expect((await cairn.kubectl(['get', 'server', 'web-2', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('small');
    const stale = (await cairn.kubectl(['get', 'server', 'web-2', '-o', 'yaml'])).stdout;
    await cairn.kubectl(['label', 'server', 'web-2', 'touched=yes']);
    const replaced = await cairn.kubectl(['replace', '-f', file('stale.yaml', stale.replace('size: small', 'size: large'))]);
    expect(replaced.code).toBe(1);
    expect(replaced.stderr).toContain('Error from server (Conflict)');
    expect(replaced.stderr).toContain('the object has been modified');
  });

  it('applies server-side, creating then updating', async () => {
    const path = file('web-3.yaml', WEB_3);
    expect((await cairn.kubectl(['apply', '--server-side', '-f', path])).stdout).toContain('server.cairn.dev/web-3 serverside-applied');
    writeFileSync(path, WEB_3.replace('size: small', 'size: medium'));
    expect((await cairn.kubectl(['apply', '--server-side', '-f', path])).stdout).toContain('serverside-applied');
    expect((await cairn.kubectl(['get', 'server', 'web-3', '-o', 'jsonpath={.spec.size} {.metadata.generation}'])).stdout).toBe('medium 2');
    await cairn.kubectl(['patch', 'server', 'web-3', '--type', 'merge', '-p', '{"spec":{"size":"large"}}']);
    const conflict = await cairn.kubectl(['apply', '--server-side', '-f', path]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('conflict with another field manager using cairn.dev/v1: .spec.size');
    expect((await cairn.kubectl(['apply', '--server-side', '--force-conflicts', '-f', path])).stdout).toContain('serverside-applied');
    expect((await cairn.kubectl(['get', 'server', 'web-3', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('medium');
  });

  it('refuses a bad manifest, naming each field, and changes nothing', async () => {
    const bad = file('bad.yaml', 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-bad\nspec:\n  provider: sandbox\n  region: eu-1\n  size: 3\n  colour: red\n');
    const result = await cairn.kubectl(['apply', '-f', bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Server "web-bad" is invalid');
    expect(result.stderr).toContain('spec.size');
    expect(result.stderr).toContain('spec.colour');
    expect((await cairn.kubectl(['get', 'server', 'web-bad'])).stderr).toContain('NotFound');
  });

  it('deletes: kubectl waits until cairn has removed it at the vendor', async () => {
    const deleted = await cairn.kubectl(['delete', 'server', 'web-3']);
    expect(deleted.stdout).toContain('server.cairn.dev "web-3" deleted');
    const after = await cairn.kubectl(['get', 'server', 'web-3']);
    expect(after.stderr).toContain('Error from server (NotFound): servers.cairn.dev "web-3" not found');
  });

  it('shuts down on SIGTERM while a watch is still open', async () => {
    const watch = cairn.spawnKubectl(['get', 'servers', '-w']);
    let seen = '';
    watch.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    try {
      for (let i = 0; i < 100 && !seen.includes('web-1'); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toContain('web-1');
      // Without ending open watches, the server would wait for them (up to 30 minutes) before exiting.
      const stopped = await Promise.race([cairn.stop().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000))]);
      expect(stopped).toBe(true);
    } finally {
      watch.kill('SIGTERM');
    }
  });
});
