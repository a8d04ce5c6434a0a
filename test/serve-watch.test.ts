/**
 * @module `cairn serve --watch DIR`, as a developer runs it: the directory is applied and
 * reconciled; an edit converges; a broken edit changes nothing and says why (file:line); the
 * fix converges; a deleted file is pruned. A missing directory is refused at start.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../src/store/store.js';
import { runCairn, spawnCairn } from './support/cairn-process.js';

const provider = `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n`;
const server = (name: string, size = 'small'): string =>
  `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: eu-1\n  size: ${size}\n`;

let root: string;
let watched: string;
let dataDir: string;
let serve: ChildProcess;
let output = '';

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; serve said:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The servers recorded, as `name:size:phase` (deleting ones left out). */
function servers(): string[] {
  const store = Store.open(dataDir);
  try {
    return store.resources.list({ tenant: 'default', kind: 'Server' }).filter((r) => r.deletionTimestamp === null)
      .map((r) => `${r.name}:${r.kind === 'Server' ? r.spec.size : ''}:${r.status.observedGeneration === r.generation ? r.status.phase : 'pending'}`);
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-watch-'));
  watched = join(root, 'manifests');
  dataDir = join(root, 'state');
  mkdirSync(watched);
  writeFileSync(join(watched, 'provider.yaml'), provider);
  writeFileSync(join(watched, 'web-1.yaml'), server('web-1'));
  writeFileSync(join(watched, 'web-2.yaml'), server('web-2'));
  serve = spawnCairn(['serve', '--port', '0', '--data-dir', dataDir, '--watch', watched], { env: { CAIRN_SANDBOX_PROVISION_MS: '100' } });
  serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until('the first revision', () => (/applied: 3 resources/.test(output) ? true : undefined));
}, 60_000);

afterAll(async () => {
  if (serve.exitCode === null) {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('exit', resolve));
  }
  rmSync(root, { recursive: true, force: true });
});

describe('cairn serve --watch', () => {
  it('applies the directory and reconciles it', async () => {
    const ready = await until('servers running', () => {
      const now = servers();
      return now.length === 2 && now.every((s) => s.endsWith(':running')) ? now : undefined;
    });
    expect(ready.sort()).toEqual(['web-1:small:running', 'web-2:small:running']);
  });

  it('leaves everything as it was on a broken edit, saying where, and converges on the fix', async () => {
    writeFileSync(join(watched, 'web-1.yaml'), server('web-1', 'medium'));
    writeFileSync(join(watched, 'web-3.yaml'), `${server('web-3')}  state: sideways\n`);
    await until('the rejection', () => (/rejected, nothing applied[^\n]*\nweb-3\.yaml:\d+:\d+ Server\/web-3 spec\.state: /.test(output) ? true : undefined));
    expect(servers().sort()).toEqual(['web-1:small:running', 'web-2:small:running']);
    writeFileSync(join(watched, 'web-3.yaml'), server('web-3'));
    const fixed = await until('the fix to converge', () => {
      const now = servers().sort();
      return now.length === 3 && now.every((s) => s.endsWith(':running')) && now[0] === 'web-1:medium:running' ? now : undefined;
    });
    expect(fixed).toEqual(['web-1:medium:running', 'web-2:small:running', 'web-3:small:running']);
  });

  it('prunes the resource whose file was deleted', async () => {
    unlinkSync(join(watched, 'web-2.yaml'));
    // The row goes (marked deleting) a moment before serve prints the revision: wait for both.
    const pruned = await until('web-2 to go and serve to say so', () => {
      const now = servers();
      return now.some((s) => s.startsWith('web-2:')) || !/pruned Server\/web-2/.test(output) ? undefined : now;
    });
    expect(pruned.map((s) => s.split(':')[0]).sort()).toEqual(['web-1', 'web-3']);
    expect(output).toMatch(/pruned Server\/web-2/);
  });

  it('refuses a directory that does not exist', async () => {
    const result = await runCairn(['serve', '--port', '0', '--data-dir', join(root, 'other'), '--watch', join(root, 'nowhere')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--watch .*nowhere: no such directory/);
  });
});
