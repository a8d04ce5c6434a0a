/**
 * @module A real app on this host through a real `cairn serve`: built from a git repository made
 * in the test, using its real PostgreSQL database through DATABASE_URL, reached through its
 * stable endpoint. v1 serves; v2 fails its health check, so v1 keeps serving and the deployment
 * is failed; v3 serves; the app's process killed comes back within seconds; logs show its output.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookUpOsUser } from '../src/drivers/local/os-user.js';
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import { startApiServer, type ApiServer } from './support/api-server.js';
import { REPO_ROOT, runCairn, spawnCairn } from './support/cairn-process.js';
import { stopLocalClusters } from './support/local-clusters.js';
import { until } from './support/until.js';

const PASSWORD = 'correct horse battery staple';
const VERSION = postgresInstallations()[0]?.major ?? 'none';

const root = mkdtempSync(join(tmpdir(), 'cairn-localapp-'));
const dataDir = join(root, 'state');
const repo = join(root, 'repo');
/** The pg client for the app, where the unprivileged user it runs as (when the tests are root) can read it. */
const modules = join(root, 'modules');
const PG_MODULES = ['pg', 'pg-cloudflare', 'pg-connection-string', 'pg-int8', 'pg-pool', 'pg-protocol', 'pg-types', 'pgpass', 'postgres-array', 'postgres-bytea', 'postgres-date', 'postgres-interval', 'split2', 'xtend'];
let api: ApiServer;
/** The app's repository is in the test's own directory: the operator allows apps to come from there. */
const ENV = { CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '3000', CAIRN_POLL_MS: '100', CAIRN_LOCAL_SOURCE_DIRS: root };
let token = '';

/** The app at `version`: counts visits in its database; `healthy: false` makes /healthz answer 500. */
function appSource(version: number, healthy = true): string {
  return `const http = require('http');
const { Client } = require('pg');
const built = require('fs').readFileSync('built.txt', 'utf8').trim();
http.createServer(async (req, res) => {
  if (req.url === '/healthz') { res.statusCode = ${healthy ? 200 : 500}; res.end(${healthy ? "'ok'" : "'broken'"}); return; }
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  await db.query('create table if not exists visits (n serial primary key)');
  await db.query('insert into visits default values');
  const { rows } = await db.query('select count(*)::int as n from visits');
  await db.end();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ version: ${version}, built, visits: rows[0].n, pid: process.pid, uid: process.getuid() }));
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('v${version} listening on ' + process.env.PORT));
`;
}

async function commit(version: number, healthy = true): Promise<string> {
  writeFileSync(join(repo, 'server.js'), appSource(version, healthy));
  await git.add({ fs, dir: repo, filepath: 'server.js' });
  return git.commit({ fs, dir: repo, message: `v${version}`, author: { name: 'test', email: 'test@example.com' } });
}

const manifests = (): string => `
apiVersion: cairn.dev/v1
kind: Provider
metadata: { name: host }
spec: { vendor: local }
---
apiVersion: cairn.dev/v1
kind: Server
metadata: { name: this-host }
spec: { provider: host, region: local, size: host }
---
apiVersion: cairn.dev/v1
kind: Database
metadata: { name: visits-db }
spec: { type: postgresql, server: this-host, version: "${VERSION}", storageGb: 1 }
---
apiVersion: cairn.dev/v1
kind: App
metadata: { name: counter }
spec:
  server: this-host
  source: { git: { url: "${repo}", ref: main } }
  build: "echo building && node -e \\"require('fs').writeFileSync('built.txt', 'yes')\\""
  command: "node server.js"
  env: { NODE_PATH: "${modules}" }
  databases: [visits-db]
  healthCheck: { path: /healthz }
`;

interface Visit {
  version: number;
  built: string;
  visits: number;
  pid: number;
  uid: number;
}

async function visit(url: string): Promise<Visit> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as Visit;
}


async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
}

/** Asks for a deployment and waits until it has finished; returns it. */
async function deploy(appId: string): Promise<any> {
  const requested = await call('POST', `/api/v1/apps/${appId}/deploy`, {});
  expect(requested.status).toBe(202);
  return until('the deployment to finish', async () => (await call('GET', `/api/v1/apps/${appId}/deployments`)).body.items.find((d: any) => d.id === requested.body.id),
    (d) => d?.status === 'succeeded' || d?.status === 'failed');
}

beforeAll(async () => {
  fs.mkdirSync(repo);
  for (const name of PG_MODULES) {
    if (fs.existsSync(join(REPO_ROOT, 'node_modules', name))) fs.cpSync(join(REPO_ROOT, 'node_modules', name), join(modules, name), { recursive: true });
  }
  await git.init({ fs, dir: repo, defaultBranch: 'main' });
  await commit(1);
  api = await startApiServer(ENV, { dataDir });
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
}, 60_000);

afterAll(async () => {
  await api.stop();
  await stopLocalClusters(dataDir);
  rmSync(root, { recursive: true, force: true });
});

describe('an app on the local vendor', () => {
  let appId = '';
  let url = '';
  let firstCommit = '';

  it('deploys v1 from git, built, with its database, reachable through its stable endpoint', async () => {
    firstCommit = await git.resolveRef({ fs, dir: repo, ref: 'main' });
    const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: manifests() } });
    expect(applied.status).toBeLessThan(300);
    const apps = await api.until<any>('/api/v1/apps', token, (b) => b.items.some((a: any) => a.name === 'counter' && a.status === 'running'), 50_000);
    const app = apps.items.find((a: any) => a.name === 'counter');
    appId = app.id;
    url = app.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await visit(url);
    expect(first).toMatchObject({ version: 1, built: 'yes', visits: 1 });
    // Never as root: as the unprivileged app user when cairn is root, else as cairn's own user.
    expect(first.uid).not.toBe(0);
    expect(first.uid).toBe(process.getuid?.() === 0 ? lookUpOsUser('nobody')?.uid : process.getuid?.());
    expect((await visit(url)).visits).toBe(2);
    const deployments = (await call('GET', `/api/v1/apps/${appId}/deployments`)).body.items;
    expect(deployments[0]).toMatchObject({ status: 'succeeded', commit: firstCommit });
    expect(deployments[0].build_output_tail).toContain('building');
    expect(deployments[0].duration_ms).toBeGreaterThan(0);
  });

  it('keeps v1 serving when v2 fails its health check; the deployment is failed, the app running and saying so', async () => {
    await commit(2, false);
    const failed = await deploy(appId);
    expect(failed.status).toBe('failed');
    expect((await visit(url)).version).toBe(1);
    const app = await api.until<any>(`/api/v1/apps/${appId}`, token, (a) => a.conditions.some((c: any) => c.type === 'Ready' && / failed$/.test(c.message)));
    expect(app.status).toBe('running');
    expect(app.conditions.find((c: any) => c.type === 'Ready').message).toMatch(/^running release \d+; release \d+ failed$/);
  });

  it('serves v3 once it is deployed, with the visits kept in the database', async () => {
    const third = await commit(3);
    const done = await deploy(appId);
    expect(done).toMatchObject({ status: 'succeeded', commit: third });
    const served = await visit(url);
    expect(served.version).toBe(3);
    expect(served.visits).toBeGreaterThan(2);
    expect((await call('GET', `/api/v1/apps/${appId}`)).body.status).toBe('running');
  });

  it('comes back within seconds when its process is killed', async () => {
    const before = await visit(url);
    process.kill(before.pid, 'SIGKILL');
    const after = await until('the app to be back', () => visit(url), (v) => v.pid !== before.pid, 15_000);
    expect(after.version).toBe(3);
  });

  it('shows its output in its logs, by tail', async () => {
    const logs = (await call('GET', `/api/v1/apps/${appId}/logs?tail=1000`)).body.items as Array<{ stream: string; line: string }>;
    expect(logs.some((l) => l.stream === 'stdout' && l.line.startsWith('v3 listening on'))).toBe(true);
    expect(logs.some((l) => l.stream === 'system' && /release \d+ failed: health check failed/.test(l.line))).toBe(true);
    // The command runs under sh: the kill shows as node's (SIGKILL) or as sh's exit code 137.
    expect(logs.some((l) => l.stream === 'system' && /(was killed by SIGKILL|exited with code 137)$/.test(l.line))).toBe(true);
    expect(logs.some((l) => l.stream === 'system' && /restarting in \d+ ms/.test(l.line))).toBe(true);
    expect((await call('GET', `/api/v1/apps/${appId}/logs?tail=2`)).body.items).toHaveLength(2);
  });

  it('stops and stays stopped, then starts again on the same URL', async () => {
    const stopping = await call('POST', `/api/v1/apps/${appId}/stop`);
    expect(stopping.status).toBe(202);
    await api.until<any>(`/api/v1/apps/${appId}`, token, (a) => a.status === 'stopped', 30_000);
    await expect(visit(url)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // longer than the first restart backoff: nothing brings it back
    await expect(visit(url)).rejects.toThrow();
    expect((await call('POST', `/api/v1/apps/${appId}/start`)).status).toBe(202);
    await api.until<any>(`/api/v1/apps/${appId}`, token, (a) => a.status === 'running', 30_000);
    expect((await visit(url)).version).toBe(3);
  });

  it('prints its logs with cairn logs, and follows them with -f', async () => {
    const printed = await runCairn(['logs', 'counter', '--tail', '1000', '--data-dir', dataDir]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/ stdout +v3 listening on \d+/);
    const follow = spawnCairn(['logs', 'counter', '--tail', '1', '-f', '--data-dir', dataDir]);
    let followed = '';
    follow.stdout?.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    const exited = new Promise((resolve) => follow.once('exit', resolve));
    try {
      await until('cairn logs -f to start', () => Promise.resolve(followed), (text) => text.length > 0, 20_000);
      const next = await deploy(appId);
      expect(next.status).toBe('succeeded');
      await until('the new release in the followed logs', () => Promise.resolve(followed), (text) => /release \d+: fetching /.test(text) && /release \d+: healthy/.test(text), 20_000);
    } finally {
      follow.kill('SIGINT');
      await exited;
    }
  });

  it('stops with cairn, and a restarted cairn serves it again at the same URL', async () => {
    await api.stop();
    await expect(visit(url)).rejects.toThrow();
    api = await startApiServer(ENV, { dataDir });
    ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
    const back = await until('the app served again', () => visit(url), (v) => v.version === 3, 50_000);
    expect(back.visits).toBeGreaterThan(3);
  });
});

