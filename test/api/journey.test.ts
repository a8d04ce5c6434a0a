/**
 * @module The whole user journey over real HTTP, as a user with curl would go: sign in, a
 * sandbox provider, a server through its power actions, a database with credentials, backup
 * and restore, an app deployed, the one-call deploy, deleting everything, refresh and logout.
 * Secrets given or made along the way never show up where they must not.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, startApiServer, type ApiServer } from '../support/api-server.js';

const PASSWORD = 'correct horse battery staple';
const PROVIDER_TOKEN = 'sandbox-credential-4f9d2c7a1b';

let api: ApiServer;
let token = '';
let refresh = '';
const seen: string[] = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const answer = await api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
  seen.push(answer.text);
  return answer;
}

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  ({ access_token: token, refresh_token: refresh } = await api.login('owner@example.com', PASSWORD));
}, 60_000);

afterAll(async () => {
  await api.stop();
});

describe('the REST API journey', () => {
  const ids: Record<string, string> = {};
  let dbPassword = '';

  it('creates and tests a sandbox provider, and lists its regions and sizes', async () => {
    const created = await call('POST', '/api/v1/providers', { name: 'sandbox', vendor: 'sandbox', credentials: { token: PROVIDER_TOKEN } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'sandbox', vendor: 'sandbox', credentials_hint: `…${PROVIDER_TOKEN.slice(-4)}`, source: 'api' });
    ids.provider = created.body.id;
    const test = await call('POST', `/api/v1/providers/${ids.provider}/test`);
    expect(test.status).toBe(200);
    expect(test.body.ok).toBe(true);
    expect((await call('GET', `/api/v1/providers/${ids.provider}`)).body.status).toBe('valid');
    const regions = await call('GET', `/api/v1/providers/${ids.provider}/regions`);
    expect(regions.body.items.map((r: { slug: string }) => r.slug)).toEqual(expect.arrayContaining(['eu-1', 'us-1', 'ap-1']));
    const sizes = await call('GET', `/api/v1/providers/${ids.provider}/sizes`);
    expect(sizes.body.items.map((s: { slug: string }) => s.slug)).toEqual(expect.arrayContaining(['small', 'medium', 'large']));
  });

  it('creates a server that runs, stops, starts, reboots and reports metrics', async () => {
    const bad = await call('POST', '/api/v1/servers', { name: 'web-1', provider_id: ids.provider, region: 'mars-1', size: 'small' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/region' })]);
    const created = await call('POST', '/api/v1/servers', { name: 'web-1', provider_id: ids.provider, region: 'eu-1', size: 'small' });
    expect(created.status).toBe(202);
    expect(created.headers.get('etag')).toMatch(/^"\d+"$/);
    ids.server = created.body.id;
    await api.until(`/api/v1/servers/${ids.server}`, token, (s) => s.status === 'running');
    const stop = await call('POST', `/api/v1/servers/${ids.server}/stop`);
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({ id: ids.server, operation_id: expect.any(String) });
    await api.until(`/api/v1/servers/${ids.server}`, token, (s) => s.status === 'stopped');
    const again = await call('POST', `/api/v1/servers/${ids.server}/stop`);
    expect(again.status).toBe(202);
    expect(again.body.status).toBe('stopped');
    await call('POST', `/api/v1/servers/${ids.server}/start`);
    await api.until(`/api/v1/servers/${ids.server}`, token, (s) => s.status === 'running');
    const reboot = await call('POST', `/api/v1/servers/${ids.server}/reboot`);
    expect(reboot.status).toBe(202);
    await api.until(`/api/v1/operations/${reboot.body.operation_id}`, token, (op) => op.status === 'succeeded');
    const metrics = await call('GET', `/api/v1/servers/${ids.server}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatchObject({ simulated: true, cpu_percent: expect.any(Number), memory_percent: expect.any(Number), disk_percent: expect.any(Number) });
  });

  it('creates a database, reads its credentials, backs it up and restores it', async () => {
    const created = await call('POST', '/api/v1/databases', { name: 'shop-db', type: 'postgresql', server_id: ids.server, version: '16', storage_gb: 10 });
    expect(created.status).toBe(202);
    ids.db = created.body.id;
    await api.until(`/api/v1/databases/${ids.db}`, token, (d) => d.status === 'available');
    const credentials = await call('GET', `/api/v1/databases/${ids.db}/credentials`);
    expect(credentials.status).toBe(200);
    dbPassword = credentials.body.password;
    expect(dbPassword.length).toBeGreaterThanOrEqual(16);
    expect(credentials.body.connection_string).toBe(
      `postgresql://${encodeURIComponent(credentials.body.username)}:${encodeURIComponent(dbPassword)}@${credentials.body.host}:${credentials.body.port}/${credentials.body.database}`,
    );
    const backup = await call('POST', `/api/v1/databases/${ids.db}/backups`);
    expect(backup.status).toBe(202);
    expect(backup.body).toMatchObject({ database_id: ids.db, kind: 'manual' });
    await api.until(`/api/v1/databases/${ids.db}/backups`, token, (l) => l.items.some((b: any) => b.id === backup.body.id && b.status === 'completed'));
    const listed = (await call('GET', `/api/v1/databases/${ids.db}/backups`)).body.items.find((b: any) => b.id === backup.body.id);
    expect(listed.size_bytes).toBeGreaterThan(0);
    expect(listed.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    const restore = await call('POST', `/api/v1/databases/${ids.db}/backups/${backup.body.id}/restore`, { rotate_credentials: true });
    expect(restore.status).toBe(202);
    expect(restore.body.status).toBe('restoring');
    await api.until(`/api/v1/operations/${restore.body.operation_id}`, token, (op) => op.status === 'succeeded', 30_000);
    const rotated = await call('GET', `/api/v1/databases/${ids.db}/credentials`);
    expect(rotated.body.password).not.toBe(dbPassword);
    dbPassword = rotated.body.password;
  });

  it('creates an app, deploys it, lists deployments and reads its logs', async () => {
    const created = await call('POST', '/api/v1/apps', {
      name: 'shop', server_id: ids.server, source: { git: { url: 'https://git.example.com/acme/shop.git', ref: 'main' } },
      command: 'node server.js', port: 8080, database_ids: [ids.db], health_check_path: '/healthz',
    });
    expect(created.status).toBe(202);
    ids.app = created.body.id;
    await api.until(`/api/v1/apps/${ids.app}`, token, (a) => a.status === 'running');
    const deploy = await call('POST', `/api/v1/apps/${ids.app}/deploy`, { ref: 'v2' });
    expect(deploy.status).toBe(202);
    expect(deploy.body).toMatchObject({ app_id: ids.app, status: 'queued', version: expect.any(Number) });
    await api.until(`/api/v1/apps/${ids.app}/deployments`, token, (l) => l.items[0]?.id === deploy.body.id && l.items[0].status === 'succeeded');
    const app = (await call('GET', `/api/v1/apps/${ids.app}`)).body;
    expect(app.source.git.ref).toBe('v2');
    expect(app.current_deployment_id).toBe(deploy.body.id);
    const logs = await call('GET', `/api/v1/apps/${ids.app}/logs?tail=50`);
    expect(logs.status).toBe(200);
    expect(logs.body.items.length).toBeGreaterThan(0);
    expect(logs.body.items[0]).toMatchObject({ ts: expect.any(String), stream: expect.any(String), line: expect.any(String) });
  });

  it('deploys a server with one call', async () => {
    const deployed = await call('POST', '/v1/deploy', { type: 'server', provider: 'sandbox', region: 'us-1', size: 'medium', name: 'quick-1' });
    expect(deployed.status).toBe(202);
    expect(deployed.body).toMatchObject({ id: expect.any(String), status: expect.any(String) });
    const running = await api.until(`/api/v1/servers/${deployed.body.id}`, token, (s) => s.status === 'running');
    expect(running.ipv4).toEqual(expect.any(String));
    ids.quick = deployed.body.id;
  });

  it('refuses to delete a server still in use, then deletes everything', async () => {
    expect((await call('DELETE', `/api/v1/servers/${ids.server}`)).status).toBe(409);
    expect((await call('DELETE', `/api/v1/providers/${ids.provider}`)).status).toBe(409);
    expect((await call('DELETE', `/api/v1/apps/${ids.app}`)).status).toBe(202);
    expect((await call('DELETE', `/api/v1/databases/${ids.db}?skip_final_backup=true`)).status).toBe(202);
    await api.until(`/api/v1/apps`, token, (l) => l.items.length === 0, 30_000);
    await api.until(`/api/v1/databases`, token, (l) => l.items.length === 0, 30_000);
    expect((await call('DELETE', `/api/v1/servers/${ids.server}`)).status).toBe(202);
    expect((await call('DELETE', `/api/v1/servers/${ids.quick}`)).status).toBe(202);
    await api.until(`/api/v1/servers`, token, (l) => l.items.length === 0, 30_000);
    expect((await call('DELETE', `/api/v1/providers/${ids.provider}`)).status).toBe(202);
    await api.until(`/api/v1/providers`, token, (l) => l.items.length === 0, 30_000);
    expect((await call('GET', `/api/v1/servers/${ids.server}`)).status).toBe(404);
  });

  it('refreshes the sign-in and logs out', async () => {
    const refreshed = await api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: refresh } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(refresh);
    token = refreshed.body.access_token;
    expect((await call('GET', '/api/v1/auth/me')).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/logout')).status).toBe(204);
    expect((await call('GET', '/api/v1/auth/me')).status).toBe(401);
    expect((await api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: refreshed.body.refresh_token } })).status).toBe(401);
  });

  it('never shows the provider credential or the database password where it must not be', () => {
    const outside = seen.filter((text) => !text.includes('"connection_string"'));
    for (const text of outside) {
      expect(text).not.toContain(PROVIDER_TOKEN);
      expect(text).not.toContain(dbPassword);
    }
    expect(api.output()).not.toContain(PROVIDER_TOKEN);
    expect(api.output()).not.toContain(dbPassword);
    expect(api.output()).not.toContain(token);
    expect(api.output()).not.toContain(refresh);
    for (const file of readdirSync(api.dataDir).filter((f) => /\.db(-wal)?$/.test(f))) {
      const bytes = readFileSync(join(api.dataDir, file));
      expect(bytes.includes(Buffer.from(PROVIDER_TOKEN)), file).toBe(false);
      expect(bytes.includes(Buffer.from(dbPassword)), file).toBe(false);
    }
  });

  it('answered everything as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
