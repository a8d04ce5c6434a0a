/**
 * @module `cairn serve` as a user runs it: health endpoints, the lease (apply follows the
 * server's progress instead of reconciling alongside it), and a clean stop on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startServe } from './support/cairn-process.js';
import { writeStack } from './support/manifests.js';
import { storeEngineUnderTest } from './support/store-engine.js';

let root: string;
let serve: ChildProcess;
let output = (): string => '';
let base = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-serve-'));
  const started = await startServe(['--port', '0', '--data-dir', join(root, 'state')], { env: { CAIRN_SANDBOX_PROVISION_MS: '100' } });
  serve = started.child;
  output = started.output;
  base = started.base;
});
afterAll(() => {
  if (serve.exitCode === null) serve.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

describe('cairn serve', () => {
  it('answers /healthz and /readyz', async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    // On a PostgreSQL store serve runs sharded, and a lone replica holds every shard.
    const shards = storeEngineUnderTest === 'postgres' ? { shards: Array.from({ length: 32 }, (_, i) => i) } : {};
    expect(await ready.json()).toEqual({ status: 'ready', checks: { store: true, reconciler: true }, ...shards });
  });

  it('reconciles what apply writes; apply --wait follows instead of reconciling alongside', async () => {
    writeStack(join(root, 'manifests'), { servers: 2, databases: 1, apps: 1 });
    const result = await runCairn(['apply', '-f', join(root, 'manifests'), '--auto-approve', '--wait', '--data-dir', join(root, 'state')]);
    expect(result.stderr).toMatch(/another cairn process \(pid \d+ on .*\) is reconciling this data dir; following its progress/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => serve.once('exit', (code) => resolve(code)));
    serve.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('shutting down');
  });
});
