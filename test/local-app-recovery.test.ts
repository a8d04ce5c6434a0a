/**
 * @module After a failed deploy on the local vendor, the release that keeps serving is still
 * supervised: v1 serves, v2 fails its health check (v1 keeps serving, the app stays `running`
 * and says so), then v1's process is killed and v1 — the same release, not a build of the
 * changed source — comes back. No database: only git, node and loopback.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './support/api-server.js';
import { until } from './support/until.js';

const PASSWORD = 'recovery password';
const root = mkdtempSync(join(tmpdir(), 'cairn-recovery-'));
const repo = join(root, 'repo');
let api: ApiServer;
let token = '';

/** The app at `version`; `healthy: false` makes /healthz answer 500. */
function appSource(version: number, healthy: boolean): string {
  return `require('http').createServer((req, res) => {
  if (req.url === '/healthz') { res.statusCode = ${healthy ? 200 : 500}; res.end(); return; }
  res.end(JSON.stringify({ version: ${version}, pid: process.pid }));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;
}

async function commit(version: number, healthy: boolean): Promise<void> {
  writeFileSync(join(repo, 'server.js'), appSource(version, healthy));
  await git.add({ fs, dir: repo, filepath: 'server.js' });
  await git.commit({ fs, dir: repo, message: `v${version}`, author: { name: 'test', email: 'test@example.com' } });
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
kind: App
metadata: { name: survivor }
spec:
  server: this-host
  source: { git: { url: "${repo}", ref: main } }
  command: "node server.js"
  healthCheck: { path: /healthz }
`;

async function visit(url: string): Promise<{ version: number; pid: number }> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as { version: number; pid: number };
}


const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> =>
  api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  fs.mkdirSync(repo);
  await git.init({ fs, dir: repo, defaultBranch: 'main' });
  await commit(1, true);
  api = await startApiServer({ CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '2000', CAIRN_POLL_MS: '100' }, { dataDir: join(root, 'state') });
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
}, 60_000);

afterAll(async () => {
  await api.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('the serving release after a failed deploy', () => {
  it('stays supervised and running, and the app says which release serves and which failed', async () => {
    const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: manifests() } });
    expect(applied.status).toBeLessThan(300);
    const apps = await api.until<any>('/api/v1/apps', token, (b) => b.items.some((a: any) => a.name === 'survivor' && a.status === 'running'), 30_000);
    const app = apps.items.find((a: any) => a.name === 'survivor');
    const first = await visit(app.url);
    expect(first.version).toBe(1);

    await commit(2, false);
    const requested = await call('POST', `/api/v1/apps/${app.id}/deploy`, {});
    expect(requested.status).toBe(202);
    await until('deployment 2 to fail', async () => (await call('GET', `/api/v1/apps/${app.id}/deployments`)).body.items.find((d: any) => d.id === requested.body.id),
      (d) => d?.status === 'failed');
    const after = await api.until<any>(`/api/v1/apps/${app.id}`, token, (a) => a.conditions.some((c: any) => c.type === 'Ready' && /release 2 failed/.test(c.message)));
    expect(after.status).toBe('running');
    expect(after.conditions.find((c: any) => c.type === 'Ready').message).toBe('running release 1; release 2 failed');
    expect((await visit(app.url)).version).toBe(1);

    process.kill(first.pid, 'SIGKILL');
    const back = await until('release 1 to come back', () => visit(app.url), (v) => v.pid !== first.pid);
    expect(back.version).toBe(1);
    const settled = (await call('GET', `/api/v1/apps/${app.id}`)).body;
    expect(settled.status).toBe('running');
  });
});
