/**
 * @module `cairn sources` through the real executable against a real git server: add (ssh
 * refused; the webhook secret shown once; a token read from stdin, never shown), sync without a
 * running serve (desired state written), get with the rejected revision's errors, suspend,
 * resume, set, list and delete.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn } from '../../../test/support/cairn-process.js';
import { startGitServer, type GitServer, type GitWorkingCopy } from '../../../test/support/git-server.js';
import { Store } from '../../store/store.js';

const provider = `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n`;
const server = (name: string): string => `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n`;

let dir: string;
let git: GitServer;
let repo: GitWorkingCopy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-sources-cli-'));
  git = await startGitServer();
  repo = git.createRepository('infra', { 'deploy/provider.yaml': provider, 'deploy/web-1.yaml': server('web-1') });
});
afterAll(async () => {
  await git.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cairn = (args: string[], input?: string): ReturnType<typeof runCairn> => runCairn([...args, '--data-dir', dir], input === undefined ? {} : { input });
const names = (): string[] => {
  const store = Store.open(dir);
  try {
    return store.resources.list({ tenant: 'default' }).filter((r) => r.deletionTimestamp === null).map((r) => `${r.kind}/${r.name}`).sort();
  } finally {
    store.close();
  }
};

describe('cairn sources', () => {
  it('refuses an ssh url and says what is supported', async () => {
    const result = await cairn(['sources', 'add', 'bad', '--url', 'ssh://git@github.com/acme/infra.git']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ssh urls are not supported.*https/);
  });

  it('adds a source with a token from stdin, shows the webhook secret once and never the token', async () => {
    const added = await cairn(['sources', 'add', 'infra', '--url', repo.url, '--path', 'deploy', '--interval', '1h', '--token-stdin'], 'tok-4f2a9c\n');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/webhook secret \(shown only now\): [\w-]{20,}/);
    expect(added.stdout).toContain('auth token');
    expect(added.stdout).not.toContain('tok-4f2a9c');
    const got = await cairn(['sources', 'get', 'infra', '-o', 'json']);
    expect(JSON.parse(got.stdout)).toMatchObject({ name: 'infra', path: 'deploy', interval_seconds: 3600, prune: true, status: 'pending', auth: { type: 'token' } });
    expect(got.stdout).not.toContain('tok-4f2a9c');
  });

  it('syncs here when no serve runs; a bad commit is shown with its errors and exit code 1', async () => {
    const synced = await cairn(['sources', 'sync', 'infra']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/revision [0-9a-f]{12} applied: 2 resources; 2 created/);
    expect(names()).toEqual(['Provider/sandbox', 'Server/web-1']);
    repo.commit({ 'deploy/web-2.yaml': `${server('web-2')}  state: sideways\n` });
    const rejected = await cairn(['sources', 'sync', 'infra']);
    expect(rejected.code).toBe(1);
    const shown = await cairn(['sources', 'get', 'infra']);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(/infra {2}failed/);
    expect(shown.stdout).toMatch(/deploy\/web-2\.yaml:\d+:\d+ Server\/web-2 spec\.state: /);
    expect(names()).toEqual(['Provider/sandbox', 'Server/web-1']);
  });

  it('suspends, resumes, changes prune, lists and deletes', async () => {
    repo.commit({ 'deploy/web-2.yaml': null, 'deploy/web-1.yaml': null, 'deploy/web-3.yaml': server('web-3') });
    expect((await cairn(['sources', 'suspend', 'infra'])).code).toBe(0);
    const whileSuspended = await cairn(['sources', 'sync', 'infra']);
    expect(whileSuspended.stdout).toMatch(/suspended; revision [0-9a-f]{12} stays in force/);
    expect(names()).toEqual(['Provider/sandbox', 'Server/web-1']);
    expect((await cairn(['sources', 'resume', 'infra'])).code).toBe(0);
    expect((await cairn(['sources', 'set', 'infra', '--no-prune'])).stdout).toContain('prune off');
    const kept = await cairn(['sources', 'sync', 'infra']);
    expect(kept.stdout).toMatch(/1 orphaned, prune is off \(Server\/web-1\)/);
    expect(names()).toEqual(['Provider/sandbox', 'Server/web-1', 'Server/web-3']);
    const list = await cairn(['sources', 'list']);
    expect(list.stdout.trim()).toMatch(/^NAME +STATUS +REF +PATH +REVISION +URL\ninfra +ready +main +deploy +[0-9a-f]{12} +http:\/\/127\.0\.0\.1:\d+\/infra\.git$/);
    const deleted = await cairn(['sources', 'delete', 'infra']);
    expect(deleted.stdout).toContain('removed infra: 0 resources to be deleted, 3 kept (now owned by the API)');
    const store = Store.open(dir);
    try {
      expect(store.resources.list({ tenant: 'default' }).map((r) => r.source)).toEqual(['api', 'api', 'api']);
    } finally {
      store.close();
    }
  });
});
