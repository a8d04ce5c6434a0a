/**
 * @module Push webhooks work from any replica (issue #20): two `cairn serve` on one PostgreSQL
 * store, a real git server on loopback. A signed push webhook sent to the replica that does NOT
 * hold the singletons lease (so does not run the git sync loop) is recorded in the store, and the
 * holder syncs the pushed commit and the server it declares becomes Ready, long before the
 * source's one-day poll interval; a forged signature there is a 401 that records nothing. An App's
 * push webhook at that replica queues a deployment of the pushed commit, which the replica
 * reconciling the App rolls out (sandbox vendor).
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions, not by types */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../src/sources/webhook-signature.js';
import { runCairn, startServe, type ServeProcess } from './support/cairn-process.js';
import { startGitServer, type GitServer, type GitWorkingCopy } from './support/git-server.js';
import { startPostgresServer, type RunningPostgresServer } from './support/postgres-server.js';
import { until } from './support/until.js';

const PASSWORD = 'a long enough password';
/** The longest poll interval a source takes: within the test only a request can make it sync again. */
const ONE_DAY_SECONDS = 86_400;
/** How long a webhook may take to become a running server: a 250 ms scan, a fetch, an apply, a 100 ms provision. */
const CONVERGE_MS = 30_000;
const HOLDING = 'holding the singletons lease';

const provider = `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n`;
const server = (name: string): string =>
  `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n`;
/** The app's source at `version` (the sandbox runs none of it). */
const serverJs = (version: number): string => `require('http').createServer((req, res) => res.end('v${version}')).listen(Number(process.env.PORT), '127.0.0.1');\n`;

let root: string;
let postgres: RunningPostgresServer | undefined;
let gitServer: GitServer | undefined;
let replicas: ServeProcess[] = [];
/** The replica running the once-per-cluster duties (the git sync loop), and the one that is not. */
let holder: ServeProcess;
let other: ServeProcess;
let token = '';
const env: NodeJS.ProcessEnv = {
  CAIRN_SANDBOX_PROVISION_MS: '100',
  CAIRN_MASTER_KEY: randomBytes(32).toString('base64'),
};

interface Answer {
  status: number;
  body: any;
}

async function call(at: ServeProcess, method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (token !== '' && options.raw === undefined) headers.authorization = `Bearer ${token}`;
  const text = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (text !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${at.base}${path}`, { method, headers, ...(text !== undefined ? { body: text } : {}) });
  const answer = await response.text();
  return { status: response.status, body: answer === '' ? undefined : JSON.parse(answer) };
}

/** GitHub's push delivery for `ref` at `after`, signed with `secret`. */
function githubPush(at: ServeProcess, path: string, secret: string, after: string, delivery: string): Promise<Answer> {
  const raw = JSON.stringify({ ref: 'refs/heads/main', after, before: '0'.repeat(40), repository: { full_name: 'test/infra' } });
  return call(at, 'POST', path, { raw, headers: { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': delivery, 'X-Hub-Signature-256': githubSignature(secret, raw) } });
}

/** What the store has recorded of a source's sync requests (the counter every replica bumps and the sync loop reads). */
async function syncRequests(sourceId: string): Promise<number> {
  const client = new pg.Client({ connectionString: env.CAIRN_STORE });
  await client.connect();
  try {
    const { rows } = await client.query<{ sync_requests: number }>('SELECT sync_requests FROM sources WHERE id = $1', [sourceId]);
    expect(rows).toHaveLength(1);
    return Number(rows[0]!.sync_requests);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-replica-webhooks-'));
  gitServer = await startGitServer();
  postgres = await startPostgresServer();
  env.CAIRN_STORE = await postgres.createDatabase();
  // One data dir for both, as in serve-replicas: the in-process sandbox cloud keeps its state there.
  const args = ['--port', '0', '--host', '127.0.0.1', '--data-dir', join(root, 'state')];
  for (let i = 0; i < 2; i++) replicas.push(await startServe(args, { env }));
  const added = await runCairn(['users', 'add', '--email', 'ops@example.com', '--role', 'owner', '--data-dir', join(root, 'state')], { env, input: `${PASSWORD}\n` });
  expect(added.code, added.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  // SIGTERM first, as an operator would; SIGKILL whatever has not gone in 15 s.
  await Promise.all(replicas.map(async (r) => {
    if (r.child.exitCode !== null || r.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => r.child.once('exit', () => resolve()));
    r.child.kill('SIGTERM');
    const timer = setTimeout(() => r.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }));
  replicas = [];
  await postgres?.stop();
  await gitServer?.stop();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

describe('push webhooks at the replica that does not hold the singletons lease', () => {
  let repo: GitWorkingCopy;
  let sourceId = '';
  let webhookSecret = '';
  let firstCommit = '';

  it('one replica holds the singletons lease and runs the git sync loop, the other does not', async () => {
    await until('one replica to hold the singletons lease', () => Promise.resolve(replicas.filter((r) => r.output().includes(HOLDING))), (held) => held.length === 1, 20_000);
    // Wait for the shards to settle (16 each) too, so that no shard moves while the test runs.
    await until('the shards to be split 16 and 16', () => Promise.all(replicas.map(async (r) => ((await (await fetch(`${r.base}/readyz`)).json()) as { shards?: number[] }).shards?.length)), (held) => held.every((n) => n === 16), 20_000);
    const holding = replicas.filter((r) => r.output().includes(HOLDING));
    expect(holding).toHaveLength(1);
    holder = holding[0]!;
    other = replicas.find((r) => r !== holder)!;
    expect(other.output()).not.toContain(HOLDING);
    const login = await call(other, 'POST', '/api/v1/auth/login', { body: { email: 'ops@example.com', password: PASSWORD } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    token = login.body.access_token;
  });

  it('creates a git source through the other replica, polled once a day; the holder syncs its first commit', async () => {
    repo = gitServer!.createRepository('infra', { 'deploy/provider.yaml': provider, 'README.md': '# infra\n' });
    const created = await call(other, 'POST', '/api/v1/sources', { body: { name: 'infra', url: repo.url, ref: 'main', path: 'deploy', interval_seconds: ONE_DAY_SECONDS } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.interval_seconds).toBe(ONE_DAY_SECONDS);
    sourceId = created.body.id;
    webhookSecret = created.body.webhook_secret;
    const synced = await until('the first sync', async () => (await call(other, 'GET', `/api/v1/sources/${sourceId}`)).body, (s) => s.revision !== null, CONVERGE_MS);
    expect(synced).toMatchObject({ status: 'ready', errors: [] });
    firstCommit = synced.revision;
    // The sync ran on the holder: it prints each sync that changed something; the other runs no sync loop.
    expect(holder.output()).toContain(`source ${sourceId}: `);
    expect(other.output()).not.toContain(`source ${sourceId}: `);
  });

  it('syncs the commit pushed when the other replica is sent its signed webhook, and the server it adds becomes Ready', async () => {
    const requestsBefore = await syncRequests(sourceId);
    const pushed = repo.commit({ 'deploy/web-1.yaml': server('web-1') }, 'add web-1');
    expect(pushed).not.toBe(firstCommit);
    const sentAt = Date.now();
    const answer = await githubPush(other, `/api/v1/sources/${sourceId}/webhook`, webhookSecret, pushed, 'source-push-1');
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({ triggered: true, sender: 'github' });
    // Recorded in the shared store by the replica that took it, for the holder's loop to read.
    expect(await syncRequests(sourceId)).toBe(requestsBefore + 1);
    const synced = await until('the pushed commit to be synced', async () => (await call(holder, 'GET', `/api/v1/sources/${sourceId}`)).body, (s) => s.revision === pushed, CONVERGE_MS);
    expect(synced).toMatchObject({ status: 'ready', attempted_revision: pushed, errors: [] });
    const running = await until('web-1 to run', async () => (await call(other, 'GET', '/api/v1/servers')).body.items as any[], (items) => items.some((s) => s.name === 'web-1' && s.status === 'running'), CONVERGE_MS);
    const web1 = running.find((s) => s.name === 'web-1');
    expect(web1).toMatchObject({ source: 'git', observed_generation: web1.generation });
    expect(web1.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    // Synced after the webhook, by the holder's loop (it prints the revision it applied); a poll was not due for a day.
    expect(Date.parse(synced.last_synced_at)).toBeGreaterThanOrEqual(sentAt);
    expect(holder.output()).toContain(`source ${sourceId}: revision ${pushed.slice(0, 12)} applied`);
    expect(other.output()).not.toContain(`source ${sourceId}: `);
    expect((await call(holder, 'GET', '/api/v1/servers')).body.items.map((s: any) => s.name)).toEqual(['web-1']);
  });

  it('refuses a webhook with a bad signature at the other replica (401), and records nothing', async () => {
    const requestsBefore = await syncRequests(sourceId);
    const before = (await call(other, 'GET', `/api/v1/sources/${sourceId}`)).body;
    const next = repo.commit({ 'deploy/web-2.yaml': server('web-2') }, 'add web-2');
    const forged = await githubPush(other, `/api/v1/sources/${sourceId}/webhook`, 'not-the-secret', next, 'source-forged-1');
    expect(forged.status, JSON.stringify(forged.body)).toBe(401);
    expect(forged.body.code).toBe('unauthorized');
    const unsigned = await call(other, 'POST', `/api/v1/sources/${sourceId}/webhook`, { raw: JSON.stringify({ ref: 'refs/heads/main', after: next }), headers: { 'X-GitHub-Event': 'push' } });
    expect(unsigned.status, JSON.stringify(unsigned.body)).toBe(401);
    expect(await syncRequests(sourceId)).toBe(requestsBefore);
    const after = (await call(other, 'GET', `/api/v1/sources/${sourceId}`)).body;
    expect(after).toMatchObject({ revision: before.revision, attempted_revision: before.attempted_revision, last_synced_at: before.last_synced_at });
  });

  it('deploys the commit pushed when the other replica is sent an App\'s signed webhook', async () => {
    // On the sandbox vendor, whose state both replicas share (a `local` App runs in the replica that
    // reconciles it, which need not be the one that reconciled its Server); it builds nothing, so no toolchain.
    const web = gitServer!.createRepository('web', { 'server.js': serverJs(1) });
    const web1 = ((await call(other, 'GET', '/api/v1/servers')).body.items as any[]).find((s) => s.name === 'web-1');
    const created = await call(other, 'POST', '/api/v1/apps', { body: { name: 'web', server_id: web1.id, source: { git: { url: web.url, ref: 'main' } }, command: 'node server.js', port: 8080 } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const appId: string = created.body.id;
    const secret: string = created.body.webhook_secret;
    const deployments = async (): Promise<any[]> => (await call(holder, 'GET', `/api/v1/apps/${appId}/deployments`)).body.items;
    await until('the app to run', async () => (await call(holder, 'GET', `/api/v1/apps/${appId}`)).body, (a) => a.status === 'running', CONVERGE_MS);
    const first = await until('the first deployment to finish', deployments, (items) => items.length === 1 && items[0].status === 'succeeded', CONVERGE_MS);

    const head = web.commit({ 'server.js': serverJs(2) }, 'v2');
    const forged = await githubPush(other, `/api/v1/apps/${appId}/webhook`, 'not-the-secret', head, 'app-forged-1');
    expect(forged.status, JSON.stringify(forged.body)).toBe(401);
    expect(await deployments()).toEqual(first);

    const answer = await githubPush(other, `/api/v1/apps/${appId}/webhook`, secret, head, 'app-push-1');
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({ app_id: appId, trigger: 'webhook', status: 'queued', commit: head });
    const done = await until('the webhook deployment to finish', async () => (await deployments()).find((d) => d.id === answer.body.id), (d) => d?.status === 'succeeded' || d?.status === 'failed', CONVERGE_MS);
    expect(done).toMatchObject({ status: 'succeeded', commit: head, trigger: 'webhook' });
    expect(await deployments()).toHaveLength(2);
    const app = (await call(other, 'GET', `/api/v1/apps/${appId}`)).body;
    expect(app).toMatchObject({ status: 'running', current_deployment_id: answer.body.id });
  });

  it('kept the singletons lease where it was throughout', () => {
    expect(holder.output()).not.toMatch(/lost the singletons lease|write refused/);
    expect(other.output()).not.toContain(HOLDING);
  });
});
