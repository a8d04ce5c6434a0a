/**
 * @module A Railway project moved onto a cairn server end to end, through REST against a real
 * `cairn serve`: the Railway double (test/doubles/railway/) holds a project with a PostgreSQL
 * plugin (a real database with rows, on loopback) and a service built from a GitHub repository,
 * served here by a real git server on loopback (CAIRN_GITHUB_URL), whose DATABASE_URL refers to the
 * plugin. cairn migrates the project onto a `local` Server; the App is cloned from git and serves
 * the copied rows. The project is only read, and the token appears nowhere in cairn's output.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresInstallations } from '../../src/drivers/local/postgres-installations.js';
import { startRailwayDouble, type RailwayDouble } from '../doubles/railway/railway-double.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { REPO_ROOT } from '../support/cairn-process.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { stopLocalClusters } from '../support/local-clusters.js';

const KEY = 'railway-e2e-token-9d3e77';
const PASSWORD = 'correct horse battery staple';
const VERSION = postgresInstallations()[0]?.major ?? 'none';
const PG_MODULES = ['pg', 'pg-cloudflare', 'pg-connection-string', 'pg-int8', 'pg-pool', 'pg-protocol', 'pg-types', 'pgpass', 'postgres-array', 'postgres-bytea', 'postgres-date', 'postgres-interval', 'split2', 'xtend'];

const root = fs.mkdtempSync(join(tmpdir(), 'cairn-migrate-railway-'));
const dataDir = join(root, 'state');
const modules = join(root, 'modules');
let api: ApiServer;
let railway: RailwayDouble;
let gitServer: GitServer;
let projectId = '';
let token = '';
let serverId = '';

const SERVER_JS = `const http = require('http');
const { Client } = require('pg');
http.createServer(async (req, res) => {
  if (req.url === '/healthz') { res.end('ok'); return; }
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const { rows } = await db.query('select id, name from items order by id');
  await db.end();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ greeting: process.env.GREETING, rows }));
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('shop listening on ' + process.env.PORT));
`;

const SETUP = `
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
metadata: { name: railway-side }
spec: { type: postgresql, server: this-host, version: "${VERSION}", storageGb: 1 }
`;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  return api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
}

/** The "Railway" database: a real PostgreSQL cluster on loopback, with rows. */
async function railwayDatabaseUrl(): Promise<string> {
  const dbs = await api.until<any>('/api/v1/databases', token, (b) => b.items.some((d: any) => d.name === 'railway-side' && d.status === 'available'), 120_000);
  const id = dbs.items.find((d: any) => d.name === 'railway-side').id as string;
  const credentials = (await call('GET', `/api/v1/databases/${id}/credentials`)).body;
  const client = new pg.Client({ connectionString: credentials.connection_string });
  await client.connect();
  await client.query('create table items (id serial primary key, name text not null)');
  await client.query("insert into items (name) values ('anvil'), ('rope'), ('lantern')");
  await client.query('create table audit (at timestamptz default now())');
  await client.end();
  return credentials.connection_string as string;
}

beforeAll(async () => {
  for (const name of PG_MODULES) {
    if (fs.existsSync(join(REPO_ROOT, 'node_modules', name))) fs.cpSync(join(REPO_ROOT, 'node_modules', name), join(modules, name), { recursive: true });
  }
  // The service's code in "GitHub": a real git server on loopback, at acme/shop.
  gitServer = await startGitServer();
  gitServer.createRepository('acme/shop', {}).commit({ 'server.js': SERVER_JS }, 'the shop');
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
  const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: SETUP } });
  expect(applied.status, applied.text).toBe(200);
  serverId = applied.body.applied.find((a: any) => a.kind === 'Server').id;

  projectId = railway.addProject({
    name: 'Shop',
    plugins: [{ name: 'postgresql', friendlyName: 'Postgres', variables: { DATABASE_URL: await railwayDatabaseUrl() } }],
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
