/**
 * @module A Railway project moved onto a cairn server end to end, through REST against a real
 * `cairn serve`: the Railway double (test/doubles/railway/) holds a project with a PostgreSQL
 * plugin (a real database with rows, on loopback) and a service built from a GitHub repository,
 * served here by a real git server on loopback (CAIRN_GITHUB_URL), whose DATABASE_URL refers to the
 * plugin. cairn migrates the project onto a `local` Server; the App is cloned from git and serves
 * the copied rows. The project is only read, and the token appears nowhere in cairn's output.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRailwayDouble, type RailwayDouble } from '../doubles/railway/railway-double.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { stopLocalClusters } from '../support/local-clusters.js';
import { copyPgModules, seededSourceDatabaseUrl, SHOP_SERVER_JS, sourceSetupManifests } from '../support/migration-source.js';

const KEY = 'railway-e2e-token-9d3e77';
const PASSWORD = 'correct horse battery staple';

const root = fs.mkdtempSync(join(tmpdir(), 'cairn-migrate-railway-'));
const dataDir = join(root, 'state');
const modules = join(root, 'modules');
let api: ApiServer;
let railway: RailwayDouble;
let gitServer: GitServer;
let projectId = '';
let token = '';
let serverId = '';

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  return api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
}

beforeAll(async () => {
  copyPgModules(modules);
  // The service's code in "GitHub": a real git server on loopback, at acme/shop.
  gitServer = await startGitServer();
  gitServer.createRepository('acme/shop', {}).commit({ 'server.js': SHOP_SERVER_JS }, 'the shop');
  railway = await startRailwayDouble({ apiKeys: [KEY] });

  api = await startApiServer(
    {
      CAIRN_RAILWAY_API_URL: railway.url,
      CAIRN_GITHUB_URL: gitServer.base,
      CAIRN_ALLOW_PRIVATE_ENDPOINTS: 'true',
      CAIRN_LOCAL_SOURCE_DIRS: root,
      CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '5000',
      CAIRN_POLL_MS: '100',
    },
    { dataDir },
  );
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
  const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: sourceSetupManifests('railway-side') } });
  expect(applied.status, applied.text).toBe(200);
  serverId = applied.body.applied.find((a: any) => a.kind === 'Server').id;

  projectId = railway.addProject({
    name: 'Shop',
    plugins: [{ name: 'postgresql', friendlyName: 'Postgres', variables: { DATABASE_URL: await seededSourceDatabaseUrl(api, token, 'railway-side') } }],
    services: [
      {
        name: 'web', repo: 'acme/shop', branch: 'main', startCommand: 'node server.js', healthcheckPath: '/healthz',
        variables: { DATABASE_URL: '${{Postgres.DATABASE_URL}}', GREETING: 'hello from railway', NODE_PATH: modules },
      },
    ],
  }).id;
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await stopLocalClusters(dataDir);
  await railway?.close();
  await gitServer?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('moving a Railway project onto a local server', () => {
  it('lists the projects the token sees', async () => {
    const listed = await call('GET', `/api/v1/migrations/platform-a/projects?api_key=${KEY}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: projectId, name: 'Shop', services: ['web'] })]);
  });

  it('migrates it: the database with its rows, the app cloned from git, healthy, serving the rows', async () => {
    const started = await call('POST', '/api/v1/migrations/platform-a/migrate', { api_key: KEY, project_id: projectId, server_id: serverId });
    expect(started.status, started.text).toBe(202);
    const done = await api.until<any>(`/api/v1/migrations/${started.body.id}`, token, (m) => m.status === 'succeeded' || m.status === 'failed', 240_000);
    expect(done.status, JSON.stringify(done.steps, null, 2)).toBe('succeeded');
    expect(done.steps.find((s: any) => s.name === 'copy_data').detail).toMatch(/2 tables, 3 rows copied, counts match/);
    expect(done.manifests).toContain(`url: ${gitServer.base}/acme/shop.git`);
    const served = (await (await fetch(done.url)).json()) as { greeting: string; rows: unknown[] };
    expect(served).toEqual({ greeting: 'hello from railway', rows: [{ id: 1, name: 'anvil' }, { id: 2, name: 'rope' }, { id: 3, name: 'lantern' }] });
  }, 300_000);

  it('kept to Railway\'s schema and never showed the token', () => {
    expect(railway.violations).toEqual([]);
    expect(api.output()).not.toContain(KEY);
  });
});
