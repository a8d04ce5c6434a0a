/**
 * @module The README's first command: `npm start` (the `start` script of package.json, with a
 * fresh data dir and an ephemeral port added) starts cairn, applies examples/quickstart on the
 * local vendor, and ends with the shop's URL — which answers, counting visits in its real
 * PostgreSQL database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, testEnv } from './support/cairn-process.js';
import { stopLocalClusters } from './support/local-clusters.js';

const root = mkdtempSync(join(tmpdir(), 'cairn-quickstart-'));
const dataDir = join(root, 'state');
let serve: ChildProcess | undefined;

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve?.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await stopLocalClusters(dataDir);
  rmSync(root, { recursive: true, force: true });
});

/** `npm start`'s command line, as package.json says it. */
function startCommand(): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [program, ...args] = (scripts.start ?? '').split(' ');
  expect(program).toBe('node');
  return args;
}

describe('the quickstart', () => {
  it('starts cairn, applies examples/quickstart on this host, and ends with a URL that answers', async () => {
    serve = spawn(process.execPath, [...startCommand(), '--port', '0', '--data-dir', dataDir], { cwd: REPO_ROOT, env: testEnv({ CAIRN_LOG_LEVEL: 'silent' }) });
    let output = '';
    serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 55_000;
    let url: string | undefined;
    while (url === undefined) {
      if (serve.exitCode !== null || Date.now() > deadline) throw new Error(`no URL from the quickstart:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      url = /App\/shop is served at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    }
    expect(output).toContain('all 4 resources are ready');
    expect(output.trim().split('\n').pop()).toBe(`App/shop is served at ${url}`);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('Hello from the shop, served by cairn. Visits so far: 1\n');
    expect(await (await fetch(url)).text()).toContain('Visits so far: 2');
  });
});
