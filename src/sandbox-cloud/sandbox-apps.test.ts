/**
 * @module Tests of the sandbox's apps as a client sees them: a release per deploy (even of the
 * same configuration), env values kept only as digests, and the log lines its simulated runtime
 * records — at the time each step happens, taken back when a transition is cut short.
 */
import { describe, expect, it } from 'vitest';
import type { SandboxCloud } from './index.js';
import type { AppBody } from './routes/app-representation.js';
import { digestValue } from './env-digest.js';
import { newServer, sandboxFilesContain, useSandboxFixture, waitFor } from './sandbox-fixture.contract.js';

const { tempDir, start, api } = useSandboxFixture('cairn-sandbox-apps-');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Transitions long enough that a loaded machine still sees each step it checks. */
const SLOW = 800;

const config = { source: { image: 'nginx:1.27' }, build: null, command: 'nginx', port: 8080, env: { A: '1' }, health_check_path: '/healthz', state: 'running' };

async function deployed(cloud: SandboxCloud, extra: Record<string, unknown> = {}): Promise<AppBody> {
  const server = (await api(cloud, 'POST', '/v1/servers', newServer('host'))).body.server;
  return (await api(cloud, 'POST', '/v1/apps', { name: 'shop', server_id: server.id, client_token: 'app-1', ...config, ...extra })).body.app;
}

async function lines(cloud: SandboxCloud, appId: string, query = ''): Promise<string[]> {
  return (await api(cloud, 'GET', `/v1/apps/${appId}/logs${query}`)).body.logs.map((l) => l.line);
}

function linesOnce(cloud: SandboxCloud, appId: string, done: (lines: string[]) => boolean, what: string): Promise<string[]> {
  return waitFor(() => lines(cloud, appId), done, what);
}

describe('sandbox cloud API: app releases', () => {
  it('deploys an app and rolls out a release for every deploy, even of the same configuration', async () => {
    const cloud = await start({ provisionMs: 100 });
    const app = await deployed(cloud);
    expect(app).toMatchObject({ status: 'deploying', release: 1, url: expect.stringMatching(/^http:\/\/.+:8080$/), env: { A: digestValue('1') } });
    expect(app.release_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    await sleep(150);
    expect((await api(cloud, 'GET', `/v1/apps/${app.id}`)).body.app.status).toBe('running');
    const same = (await api(cloud, 'PATCH', `/v1/apps/${app.id}`, config)).body.app;
    expect(same).toMatchObject({ release: 2, release_digest: app.release_digest, status: 'deploying' });
    const changed = (await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { ...config, env: { A: '2' } })).body.app;
    expect(changed).toMatchObject({ release: 3, status: 'deploying', env: { A: digestValue('2') } });
    expect(changed.release_digest).not.toBe(app.release_digest);
    const redeployed = await api(cloud, 'POST', `/v1/apps/${app.id}/deploy`);
    expect(redeployed.status).toBe(200);
    expect(redeployed.body.app).toMatchObject({ release: 4, release_digest: changed.release_digest, status: 'deploying' });
    await sleep(150);
    const stopped = (await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { state: 'stopped' })).body.app;
    expect(stopped).toMatchObject({ release: 4, status: 'stopping' });
    expect((await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { state: 'stopped' })).body.app.release).toBe(4);
    expect((await api(cloud, 'POST', '/v1/apps', { name: 'x', server_id: app.server_id, source: {} })).body).toMatchObject({ field: 'source' });
    expect((await api(cloud, 'DELETE', `/v1/servers/${app.server_id}`)).status).toBe(409);
    expect((await api(cloud, 'DELETE', `/v1/apps/${app.id}`)).status).toBe(204);
    expect((await api(cloud, 'DELETE', `/v1/apps/${app.id}`)).status).toBe(404);
    expect((await api(cloud, 'POST', `/v1/apps/${app.id}/deploy`, {})).status).toBe(404);
  });

  it('records a release of a stopped app without starting it', async () => {
    const cloud = await start();
    const app = await deployed(cloud, { state: 'stopped' });
    expect(app).toMatchObject({ status: 'stopped', release: 1 });
    const patched = (await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { ...config, state: 'stopped' })).body.app;
    expect(patched).toMatchObject({ status: 'stopped', release: 2 });
    expect(await lines(cloud, app.id)).toContain("release 2: not started: the app's state is stopped");
  });

  it('keeps env values only as digests, never in its files', async () => {
    const dataDir = tempDir();
    const cloud = await start({ dataDir });
    const secretUrl = 'postgresql://shop:env-canary-secret-7@198.51.100.7:5432/shop';
    const app = await deployed(cloud, { env: { DATABASE_URL: secretUrl, NODE_ENV: 'production' } });
    expect(app.env).toEqual({ DATABASE_URL: digestValue(secretUrl), NODE_ENV: digestValue('production') });
    await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { ...config, env: { DATABASE_URL: `${secretUrl}?v=2` } });
    expect(sandboxFilesContain(dataDir, 'DATABASE_URL')).toBe(true);
    expect(sandboxFilesContain(dataDir, 'env-canary-secret-7')).toBe(false);
    expect(JSON.stringify((await api(cloud, 'GET', '/v1/apps')).body)).not.toContain('env-canary');
  });
});

describe('sandbox cloud API: app logs', () => {
  it('records each step of a deploy when it happens, as system lines, oldest first, without git credentials', async () => {
    const cloud = await start({ provisionMs: SLOW });
    const app = await deployed(cloud, { build: 'npm ci', source: { git: { url: 'https://bot:tok-123@git.example.com/acme/shop.git', ref: 'main', path: '.' } } });
    expect(await lines(cloud, app.id)).toEqual([
      'release 1: deploying git https://git.example.com/acme/shop.git at main',
      'release 1: build command run (simulated, nothing was executed): npm ci',
      'release 1: starting "nginx" on port 8080',
    ]);
    await linesOnce(cloud, app.id, (l) => l.includes('release 1: started'), 'release 1 to start');
    const logs = (await api(cloud, 'GET', `/v1/apps/${app.id}/logs`)).body.logs;
    expect(logs.slice(3).map((l) => l.line)).toEqual(['release 1: health check GET /healthz answered 200 (simulated)', 'release 1: started']);
    expect(logs.every((l) => l.stream === 'system')).toBe(true);
    const times = logs.map((l) => Date.parse(l.ts));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((times[4] ?? 0) - (times[0] ?? 0)).toBe(SLOW);

    await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { state: 'stopped' });
    await linesOnce(cloud, app.id, (l) => l.includes('release 1: stopped'), 'release 1 to stop');
    await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { state: 'running' });
    await linesOnce(cloud, app.id, (l) => l.filter((x) => x === 'release 1: started').length === 2, 'release 1 to start again');
    expect((await lines(cloud, app.id)).slice(5)).toEqual([
      'release 1: stopping', 'release 1: stopped',
      'release 1: starting "nginx" on port 8080', 'release 1: health check GET /healthz answered 200 (simulated)', 'release 1: started',
    ]);
  });

  it('takes back the outcome of a deploy cut short by the next one', async () => {
    const cloud = await start({ provisionMs: SLOW });
    const app = await deployed(cloud, { health_check_path: null, command: null, port: null });
    await api(cloud, 'PATCH', `/v1/apps/${app.id}`, { env: { A: '2' } });
    expect(await linesOnce(cloud, app.id, (l) => l.includes('release 2: started'), 'release 2 to start')).toEqual([
      'release 1: deploying image nginx:1.27',
      'release 1: starting the default command on no port',
      'release 1: deploying interrupted by release 2',
      'release 2: deploying image nginx:1.27',
      'release 2: starting the default command on no port',
      'release 2: started',
    ]);
  });

  it('serves the newest lines by tail and since, and refuses bad queries', async () => {
    const cloud = await start();
    const app = await deployed(cloud);
    for (let i = 0; i < 3; i += 1) await api(cloud, 'POST', `/v1/apps/${app.id}/deploy`);
    const all = (await api(cloud, 'GET', `/v1/apps/${app.id}/logs`)).body.logs;
    expect(all).toHaveLength(16);
    expect((await api(cloud, 'GET', `/v1/apps/${app.id}/logs?tail=2`)).body.logs).toEqual(all.slice(-2));
    const since = all[8]?.ts ?? '';
    const recent = (await api(cloud, 'GET', `/v1/apps/${app.id}/logs?since=${encodeURIComponent(since)}`)).body.logs;
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((l) => l.ts >= since)).toBe(true);
    expect(recent).toEqual(all.filter((l) => l.ts >= since));
    expect((await api(cloud, 'GET', `/v1/apps/${app.id}/logs?since=2999-01-01T00:00:00Z`)).body.logs).toEqual([]);
    for (const query of ['tail=0', 'tail=1001', 'tail=abc', 'tail=1&tail=2']) {
      expect((await api(cloud, 'GET', `/v1/apps/${app.id}/logs?${query}`)).body).toMatchObject({ id: 'unprocessable_entity', field: 'tail' });
    }
    expect((await api(cloud, 'GET', `/v1/apps/${app.id}/logs?since=yesterday`)).body).toMatchObject({ field: 'since' });
    expect((await api(cloud, 'GET', '/v1/apps/nope/logs')).status).toBe(404);
    cloud.setFaults({ errorRate: 1, faultKinds: ['unavailable'] });
    expect((await api(cloud, 'GET', `/v1/apps/${app.id}/logs`)).status).toBe(503);
  });
});
