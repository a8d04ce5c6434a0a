/**
 * @module What both end-to-end migration tests (test/migrations/) stand on: the platform's side
 * made real on this host — a `local` Server holding a PostgreSQL database with rows, which the
 * platform double names as the app's DATABASE_URL — and the shop app whose code the platform
 * keeps (it serves the rows of DATABASE_URL and a config var, with `pg` copied beside it).
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import * as fs from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { postgresInstallations } from '../../src/drivers/local/postgres-installations.js';
import type { ApiServer } from './api-server.js';
import { REPO_ROOT } from './cairn-process.js';

/** The major version of the PostgreSQL installed here (the source database and the migrated one). */
export const POSTGRES_VERSION = postgresInstallations()[0]?.major ?? 'none';

const PG_MODULES = ['pg', 'pg-cloudflare', 'pg-connection-string', 'pg-int8', 'pg-pool', 'pg-protocol', 'pg-types', 'pgpass', 'postgres-array', 'postgres-bytea', 'postgres-date', 'postgres-interval', 'split2', 'xtend'];

/** The platform's app: answers its health check, and with the rows of `items` and `$GREETING` otherwise. */
export const SHOP_SERVER_JS = `const http = require('http');
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

/** Copies `pg` and what it needs into `modules`, for the shop to require through NODE_PATH. */
export function copyPgModules(modules: string): void {
  for (const name of PG_MODULES) {
    if (fs.existsSync(join(REPO_ROOT, 'node_modules', name))) fs.cpSync(join(REPO_ROOT, 'node_modules', name), join(modules, name), { recursive: true });
  }
}

/** The host as a Server (`this-host`) and the platform's database `name` on it. */
export function sourceSetupManifests(name: string): string {
  return `
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
metadata: { name: ${name} }
spec: { type: postgresql, server: this-host, version: "${POSTGRES_VERSION}", storageGb: 1 }
`;
}

/** Waits for database `name` to be available, fills it (three items, an empty audit table) and answers its URL. */
export async function seededSourceDatabaseUrl(api: ApiServer, token: string, name: string): Promise<string> {
  const dbs = await api.until<any>('/api/v1/databases', token, (b) => b.items.some((d: any) => d.name === name && d.status === 'available'), 120_000);
  const id = dbs.items.find((d: any) => d.name === name).id as string;
  const credentials = (await api.call('GET', `/api/v1/databases/${id}/credentials`, { token })).body;
  const client = new pg.Client({ connectionString: credentials.connection_string });
  await client.connect();
  await client.query('create table items (id serial primary key, name text not null)');
  await client.query("insert into items (name) values ('anvil'), ('rope'), ('lantern')");
  await client.query('create table audit (at timestamptz default now())');
  await client.end();
  return credentials.connection_string as string;
}
