/**
 * @module examples/ssh end to end, as a user runs it: `cairn ssh-keys runtime` prints cairn's
 * key for the tenant, which goes into the host's authorized_keys (a real sshd on loopback, its
 * runtime files in a temporary directory through SetEnv), then `cairn apply --wait` of the
 * example — its host and port rewritten to that sshd — adopts the host, makes a PostgreSQL
 * database there and deploys the app on it, which answers through its stable port with the
 * database reachable; `cairn delete` of the Database and App leaves no cluster and no app
 * process on the host.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../src/store/store.js';
import { runCairn } from './support/cairn-process.js';
import { sshExampleOnLoopback } from './support/ssh-example.js';
import type { RunningSshd } from './support/sshd.js';

describe('cairn apply examples/ssh against a host reached over SSH', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-ssh-apply-'));
  const dataDir = join(root, 'state');
  const runtimeDir = join(root, 'host-runtime');
  const manifests = join(root, 'manifests');
  let sshd: RunningSshd;
  const cairn = (...args: string[]) => runCairn([...args, '--data-dir', dataDir], { cwd: root, env: { CAIRN_POLL_MS: '200', CAIRN_LOCAL_SOURCE_DIRS: root }, timeoutMs: 300_000 });

  beforeAll(async () => {
    sshd = await sshExampleOnLoopback({ dataDir, runtimeDir, exampleDir: manifests });
  });

  afterAll(async () => {
    await cairn('delete', '-f', manifests, '--auto-approve', '--wait').catch(() => undefined);
    await sshd?.stop({ remove: true });
    rmSync(root, { recursive: true, force: true });
  }, 200_000);

  function phases(): Record<string, string> {
    const store = Store.open(dataDir);
    try {
      const found: Record<string, string> = {};
      for (const kind of ['Provider', 'Server', 'Database', 'App'] as const) {
        for (const r of store.resources.list({ tenant: 'default', kind })) found[`${kind}/${r.name}`] = r.status.phase;
      }
      return found;
    } finally {
      store.close();
    }
  }

  /** Each resource's Ready condition, for failure messages. */
  function conditions(): string {
    const store = Store.open(dataDir);
    try {
      return store.resources.list({ tenant: 'default' }).map((r) => `${r.kind}/${r.name}: ${r.status.phase} ${JSON.stringify(r.status.conditions)}`).join('\n');
    } finally {
      store.close();
    }
  }

  function appUrl(): string {
    const store = Store.open(dataDir);
    try {
      const app = store.resources.list({ tenant: 'default', kind: 'App' })[0];
      const url = app?.status.endpoints?.url;
      if (typeof url !== 'string') throw new Error(`the app has no URL yet: ${JSON.stringify(app?.status)}`);
      return url;
    } finally {
      store.close();
    }
  }

  it('adopts the host, makes the database there and deploys the app, which reaches it', { timeout: 200_000 }, async () => {
    const applied = await cairn('apply', '-f', manifests, '--auto-approve', '--wait', '--timeout', '150s');
    expect(applied.code, `${applied.stdout}\n${applied.stderr}\n${conditions()}`).toBe(0);
    expect(phases()).toEqual({ 'Provider/byo': 'valid', 'Server/box-1': 'running', 'Database/hello-db': 'available', 'App/hello': 'running' });
    expect(readdirSync(join(runtimeDir, 'databases'))).toHaveLength(1);
    const answer = await fetch(appUrl());
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('database: reachable');
  });

  it('removes the database and the app from the host, and forgets the host', { timeout: 200_000 }, async () => {
    const deleted = await cairn('delete', '-f', manifests, '--auto-approve', '--wait', '--timeout', '180s');
    expect(deleted.code, `${deleted.stdout}\n${deleted.stderr}`).toBe(0);
    expect(phases()).toEqual({});
    expect(existsSync(join(runtimeDir, 'databases')) ? readdirSync(join(runtimeDir, 'databases')) : []).toEqual([]);
    expect(readdirSync(join(runtimeDir, 'records', 'apps'))).toEqual([]);
    expect(existsSync(join(runtimeDir, 'server.json'))).toBe(false);
  });
});
