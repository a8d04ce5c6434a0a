/**
 * @module A Heroku app moved onto a cairn server end to end, through REST against a real `cairn
 * serve`: the Heroku double (test/doubles/heroku/) holds an app whose DATABASE_URL points at a
 * real PostgreSQL database with rows (made by the test on this host, on loopback) and whose
 * latest build's source is a tarball the test serves on loopback (a tiny Node app that serves the
 * rows of DATABASE_URL and a config var). cairn lists and analyzes the app, migrates it onto a
 * `local` Server, and the migrated rows are read through the new App's URL. The platform's app is
 * only read, and the API key appears nowhere in cairn's output.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHerokuDouble, type HerokuDouble } from '../doubles/heroku/heroku-double.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { runCairn } from '../support/cairn-process.js';
import { stopLocalClusters } from '../support/local-clusters.js';
import { copyPgModules, POSTGRES_VERSION, seededSourceDatabaseUrl, SHOP_SERVER_JS, sourceSetupManifests } from '../support/migration-source.js';

const KEY = 'HRKU-e2e-migration-key-5f0c1a';
const PASSWORD = 'correct horse battery staple';

const root = fs.mkdtempSync(join(tmpdir(), 'cairn-migrate-heroku-'));
const dataDir = join(root, 'state');
const modules = join(root, 'modules');
let api: ApiServer;
let heroku: HerokuDouble;
let tarballs: Server;
let token = '';
let serverId = '';

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  return api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
}

beforeAll(async () => {
  copyPgModules(modules);
  // The app's source as Heroku keeps it: a tarball of its code, served on loopback.
  const source = join(root, 'source');
  fs.mkdirSync(source);
  fs.writeFileSync(join(source, 'server.js'), SHOP_SERVER_JS);
  fs.writeFileSync(join(source, 'Procfile'), 'web: node server.js\n');
  await createTar({ gzip: true, cwd: source, file: join(root, 'shop.tgz') }, ['server.js', 'Procfile']);
  tarballs = createServer((req, res) => {
    if (req.url !== '/sources/shop.tgz?signature=abc') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/gzip');
    fs.createReadStream(join(root, 'shop.tgz')).pipe(res);
  });
  await new Promise<void>((resolve) => tarballs.listen(0, '127.0.0.1', resolve));
  heroku = await startHerokuDouble({ apiKeys: [KEY] });

  api = await startApiServer(
    {
      CAIRN_HEROKU_API_URL: heroku.url,
      CAIRN_ALLOW_PRIVATE_ENDPOINTS: 'true',
      CAIRN_LOCAL_SOURCE_DIRS: root,
      CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '5000',
      CAIRN_POLL_MS: '100',
    },
    { dataDir },
  );
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
  const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: sourceSetupManifests('heroku-side') } });
  expect(applied.status, applied.text).toBe(200);
  serverId = applied.body.applied.find((a: any) => a.kind === 'Server').id;

  heroku.addApp({
    name: 'shop',
    formation: [
      { type: 'web', command: 'node server.js' },
      { type: 'worker', command: 'node worker.js' },
    ],
    configVars: { DATABASE_URL: await seededSourceDatabaseUrl(api, token, 'heroku-side'), GREETING: 'hello from heroku', NODE_PATH: modules },
    addons: [{ name: 'postgresql-curly-12345', service: 'heroku-postgresql', plan: 'heroku-postgresql:essential-0', configVars: ['DATABASE_URL'] }],
    builds: [{ status: 'succeeded', sourceUrl: `http://127.0.0.1:${(tarballs.address() as AddressInfo).port}/sources/shop.tgz?signature=abc` }],
  });
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await stopLocalClusters(dataDir);
  await heroku?.close();
  await new Promise((resolve) => tarballs?.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

describe('moving a Heroku app onto a local server', () => {
  let migrationId = '';

  it('lists the apps the key sees, and refuses a key Heroku refuses', async () => {
    const listed = await call('GET', `/api/v1/migrations/platform-b/apps?api_key=${KEY}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ name: 'shop', services: ['web', 'worker'], databases: ['postgresql-curly-12345'] })]);
    const refused = await call('GET', '/api/v1/migrations/platform-b/apps?api_key=wrong-key');
    expect(refused.status).toBe(422);
    expect(refused.text).not.toContain('wrong-key');
  });

  it('analyzes the app into manifests on the server, config var names without values', async () => {
    const analyzed = await call('POST', '/api/v1/migrations/platform-b/analyze', { api_key: KEY, app_name: 'shop', server_id: serverId });
    expect(analyzed.status, analyzed.text).toBe(200);
    expect(analyzed.body.config_vars.sort()).toEqual(['DATABASE_URL', 'GREETING', 'NODE_PATH']);
    expect(analyzed.text).not.toContain('hello from heroku');
    expect(analyzed.body.databases).toEqual([expect.objectContaining({ name: 'postgresql-curly-12345', type: 'postgresql', url_variable: 'DATABASE_URL' })]);
    expect(analyzed.body.warnings.join('\n')).toContain('worker');
    expect(analyzed.body.manifests).toContain('server: this-host');
    expect(analyzed.body.manifests).toContain(`version: "${POSTGRES_VERSION}"`);
  });

  it('migrates it: databases, data, app, health; the rows are served from the new app', async () => {
    const started = await call('POST', '/api/v1/migrations/platform-b/migrate', { api_key: KEY, app_name: 'shop', server_id: serverId });
    expect(started.status, started.text).toBe(202);
    migrationId = started.body.id;
    expect(started.body.steps.map((s: any) => s.name)).toEqual(['read_config', 'create_databases', 'copy_data', 'create_apps', 'wait_for_apps']);
    const done = await api.until<any>(`/api/v1/migrations/${migrationId}`, token, (m) => m.status === 'succeeded' || m.status === 'failed', 240_000);
    expect(done.status, JSON.stringify(done.steps, null, 2)).toBe('succeeded');
    expect(done.steps.every((s: any) => s.status === 'succeeded')).toBe(true);
    expect(done.steps.find((s: any) => s.name === 'copy_data').detail).toMatch(/2 tables, 3 rows copied, counts match/);
    expect(done.resources.map((r: any) => `${r.kind}/${r.name}`).sort()).toEqual(['App/shop', 'Database/postgresql-curly-12345']);
    expect(done.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const served = (await (await fetch(done.url)).json()) as { greeting: string; rows: unknown[] };
    expect(served).toEqual({ greeting: 'hello from heroku', rows: [{ id: 1, name: 'anvil' }, { id: 2, name: 'rope' }, { id: 3, name: 'lantern' }] });
  }, 300_000);

  it('reads from cairn\'s own database, not Heroku\'s', async () => {
    const app = (await call('GET', '/api/v1/apps')).body.items.find((a: any) => a.name === 'shop');
    expect(app.database_ids).toHaveLength(1);
    const db = (await call('GET', `/api/v1/databases/${app.database_ids[0]}`)).body;
    expect(db.name).toBe('postgresql-curly-12345');
  });

  it('never changed the Heroku app, never showed the key, and kept to Heroku\'s document', async () => {
    expect(heroku.calls.filter((c) => !c.startsWith('GET '))).toEqual([]);
    expect(heroku.violations).toEqual([]);
    expect(api.output()).not.toContain(KEY);
    const listed = await call('GET', '/api/v1/migrations');
    expect(listed.body.items.map((m: any) => m.id)).toEqual([migrationId]);
    expect(JSON.stringify(listed.body)).not.toContain('hello from heroku');
  });

  it('shows the same through the CLI, the key taken from HEROKU_API_KEY or stdin, never a flag', async () => {
    const remote = ['--server', api.base, '--token', token];
    const listed = await runCairn(['migrate', 'heroku', 'list', ...remote, '-o', 'json'], { env: { HEROKU_API_KEY: KEY } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).items.map((i: any) => i.name)).toEqual(['shop']);
    const fromStdin = await runCairn(['migrate', 'heroku', 'list', ...remote], { env: { HEROKU_API_KEY: '' }, input: `${KEY}\n` });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toContain('shop');
    const status = await runCairn(['migrate', 'heroku', 'status', migrationId, ...remote]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`migration ${migrationId}: heroku shop succeeded`);
    expect(status.stdout).toMatch(/copy_data\s+succeeded: .*3 rows copied/);
    const wrong = await runCairn(['migrate', 'heroku', 'list', ...remote], { env: { HEROKU_API_KEY: 'not-the-key' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('cairn answered 422');
    expect(wrong.stderr).not.toContain('not-the-key');
  });

  it('refuses to migrate again onto names that now exist, recording nothing', async () => {
    const again = await call('POST', '/api/v1/migrations/platform-b/migrate', { api_key: KEY, app_name: 'shop', server_id: serverId });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('Database/postgresql-curly-12345');
    expect((await call('GET', '/api/v1/migrations')).body.items).toHaveLength(1);
  });
});

describe('a migration interrupted by a restart of cairn serve', () => {
  it('continues after the restart without the key, and does not read the platform again', async () => {
    const source = heroku.apps.get('shop')!;
    heroku.addApp({
      name: 'depot',
      formation: [{ type: 'web', command: 'node server.js' }],
      configVars: { ...source.configVars, GREETING: 'hello from the depot' },
      addons: [{ name: 'postgresql-depot-777', service: 'heroku-postgresql', plan: 'heroku-postgresql:essential-0', configVars: ['DATABASE_URL'] }],
      builds: [{ status: 'succeeded', sourceUrl: `http://127.0.0.1:${(tarballs.address() as AddressInfo).port}/sources/shop.tgz?signature=abc` }],
    });
    const started = await call('POST', '/api/v1/migrations/platform-b/migrate', { api_key: KEY, app_name: 'depot', server_id: serverId });
    expect(started.status, started.text).toBe(202);
    const id = started.body.id as string;
    // Stopped once the config vars are read and sealed, while the database is being made.
    const midway = await api.until<any>(`/api/v1/migrations/${id}`, token, (m) => m.steps[0].status === 'succeeded' || m.status !== 'running', 60_000);
    expect(midway.status).toBe('running');
    const readAt = midway.steps[0].finished_at as string;
    const configReads = heroku.calls.filter((c) => c === 'GET /apps/depot/config-vars').length;
    await api.stop();

    api = await startApiServer({ CAIRN_HEROKU_API_URL: heroku.url, CAIRN_ALLOW_PRIVATE_ENDPOINTS: 'true', CAIRN_LOCAL_SOURCE_DIRS: root, CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '5000', CAIRN_POLL_MS: '100' }, { dataDir });
    ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
    expect(api.output()).toContain('resuming 1 unfinished migration');
    const done = await api.until<any>(`/api/v1/migrations/${id}`, token, (m) => m.status === 'succeeded' || m.status === 'failed', 240_000);
    expect(done.status, JSON.stringify(done.steps, null, 2)).toBe('succeeded');
    expect(done.steps[0].finished_at).toBe(readAt);
    expect(heroku.calls.filter((c) => c === 'GET /apps/depot/config-vars').length).toBe(configReads);
    const served = (await (await fetch(done.url)).json()) as { greeting: string; rows: unknown[] };
    expect(served.greeting).toBe('hello from the depot');
    expect(served.rows).toHaveLength(3);
  }, 400_000);
});
