/**
 * @module A real PostgreSQL database on this host through a real `cairn serve` and its REST API:
 * create it, connect with the `pg` client using the credentials endpoint, write rows, back up,
 * delete the rows, restore, and the rows are back; rotate, and the old password is refused while
 * the new one works; a backup whose file was changed is refused. Then cairn stops: the cluster
 * keeps running, a new cairn adopts it, and a cluster killed behind cairn's back is started again.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import { startApiServer, type ApiServer } from './support/api-server.js';
import { clusterPids, stopLocalClusters } from './support/local-clusters.js';
import { until } from './support/until.js';

const PASSWORD = 'correct horse battery staple';
const VERSION = postgresInstallations()[0]?.major ?? 'none';
const ENV = { CAIRN_RESYNC_MS: '1000', CAIRN_POLL_MS: '100' };

const root = mkdtempSync(join(tmpdir(), 'cairn-localdb-'));
const dataDir = join(root, 'state');
let api: ApiServer;
let token = '';

const manifests = `
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
metadata: { name: orders-db }
spec: { type: postgresql, server: this-host, version: "${VERSION}", storageGb: 1 }
`;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
}

async function signIn(): Promise<void> {
  ({ access_token: token } = await api.login('owner@example.com', PASSWORD));
}

async function query<T extends pg.QueryResultRow>(connectionString: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Whether the password is refused (28P01) rather than accepted. */
async function refused(connectionString: string): Promise<boolean> {
  try {
    await query(connectionString, 'select 1');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return true;
    throw error;
  }
}


async function orderCount(connectionString: string): Promise<number> {
  return Number((await query<{ n: string }>(connectionString, 'select count(*) as n from orders'))[0]?.n);
}

beforeAll(async () => {
  api = await startApiServer(ENV, { dataDir });
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  await signIn();
}, 60_000);

afterAll(async () => {
  await api.stop();
  await stopLocalClusters(dataDir);
  rmSync(root, { recursive: true, force: true });
});

describe('a PostgreSQL database on the local vendor', () => {
  let dbId = '';
  let url = '';
  let firstBackup: any;

  it('is created, and its credentials connect with the pg client; rows can be written', async () => {
    const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: manifests } });
    expect(applied.status).toBeLessThan(300);
    const list = await api.until<any>('/api/v1/databases', token, (b) => b.items.some((d: any) => d.name === 'orders-db' && d.status === 'available'), 50_000);
    const db = list.items.find((d: any) => d.name === 'orders-db');
    dbId = db.id;
    expect(db.engine_version).toMatch(new RegExp(`^${VERSION}\\.`));
    const credentials = await call('GET', `/api/v1/databases/${dbId}/credentials`);
    expect(credentials.status).toBe(200);
    url = credentials.body.connection_string;
    expect(url).toBe(`postgresql://${credentials.body.username}:${credentials.body.password}@127.0.0.1:${credentials.body.port}/${credentials.body.database}`);
    const server = (await call('GET', '/api/v1/servers')).body.items.find((x: any) => x.name === 'this-host');
    const metrics = await call('GET', `/api/v1/servers/${server.id}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body.memory_percent).toBeGreaterThan(0);
    expect(metrics.body.disk_percent).toBeGreaterThan(0);
    expect(metrics.body.series.length).toBeGreaterThan(0);
    await query(url, 'create table orders (id serial primary key, item text not null)');
    await query(url, "insert into orders (item) values ('tea'), ('bread'), ('soap')");
    expect(await orderCount(url)).toBe(3);
  });

  it('is backed up with pg_dump, the rows deleted, restored, and the rows are back', async () => {
    const started = await call('POST', `/api/v1/databases/${dbId}/backups`, {});
    expect(started.status).toBe(202);
    const backups = await api.until<any>(`/api/v1/databases/${dbId}/backups`, token, (b) => b.items.some((x: any) => x.id === started.body.id && x.status === 'completed'), 60_000);
    firstBackup = backups.items.find((x: any) => x.id === started.body.id);
    expect(firstBackup.size_bytes).toBeGreaterThan(0);
    expect(firstBackup.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    await query(url, 'delete from orders');
    expect(await orderCount(url)).toBe(0);
    const restore = await call('POST', `/api/v1/databases/${dbId}/backups/${firstBackup.id}/restore`, {});
    expect(restore.status).toBe(202);
    const done = await api.until<any>(`/api/v1/operations/${restore.body.operation_id}`, token, (o) => o.status === 'succeeded' || o.status === 'failed', 60_000);
    expect(done.status).toBe('succeeded');
    expect(await orderCount(url)).toBe(3);
    expect((await query<{ item: string }>(url, 'select item from orders order by id')).map((r) => r.item)).toEqual(['tea', 'bread', 'soap']);
  });

  it('rotates its credentials: the old password is refused, the new one accepted', async () => {
    const rotate = await call('POST', `/api/v1/databases/${dbId}/credentials/rotate`);
    expect(rotate.status).toBe(202);
    const done = await api.until<any>(`/api/v1/operations/${rotate.body.operation_id}`, token, (o) => o.status === 'succeeded' || o.status === 'failed', 60_000);
    expect(done.status).toBe('succeeded');
    const fresh = (await call('GET', `/api/v1/databases/${dbId}/credentials`)).body.connection_string as string;
    expect(fresh).not.toBe(url);
    expect(await refused(url)).toBe(true);
    expect(await orderCount(fresh)).toBe(3);
    url = fresh;
  });

  it('refuses to restore a backup whose sealed file was altered, and changes nothing', async () => {
    const started = await call('POST', `/api/v1/databases/${dbId}/backups`, {});
    await api.until<any>(`/api/v1/databases/${dbId}/backups`, token, (b) => b.items.some((x: any) => x.id === started.body.id && x.status === 'completed'), 60_000);
    const backupsDir = join(dataDir, 'local', 'backups');
    const files = readdirSync(backupsDir).filter((f) => f.endsWith('.dump'));
    expect(files.length).toBe(2);
    for (const file of files) appendFileSync(join(backupsDir, file), 'tampered');
    await query(url, "insert into orders (item) values ('milk')");
    const restore = await call('POST', `/api/v1/databases/${dbId}/backups/${started.body.id}/restore`, {});
    const done = await api.until<any>(`/api/v1/operations/${restore.body.operation_id}`, token, (o) => o.status === 'succeeded' || o.status === 'failed', 60_000);
    expect(done.status).toBe('failed');
    expect(done.message ?? JSON.stringify(done)).toMatch(/its file was altered since it was made \(.*does not decrypt/);
    expect(await orderCount(url)).toBe(4);
  });

  it('keeps running when cairn stops; a new cairn adopts it and starts it again when it was killed', async () => {
    await api.stop();
    expect(await orderCount(url)).toBe(4); // no cairn running: the cluster still serves
    api = await startApiServer(ENV, { dataDir });
    await signIn();
    const db = await api.until<any>(`/api/v1/databases/${dbId}`, token, (d) => d.status === 'available', 60_000);
    expect(db.id).toBe(dbId);
    const [pid] = clusterPids(dataDir);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid ?? 0, 'SIGKILL');
    await until('the killed cluster to be started again', () => orderCount(url), (n) => n === 4, 60_000);
    expect(clusterPids(dataDir)[0]).not.toBe(pid);
  });

  it('is deleted with a final backup first, and its cluster is gone', async () => {
    const before = (await call('GET', `/api/v1/databases/${dbId}/backups`)).body.items.length as number;
    const deleting = await call('DELETE', `/api/v1/databases/${dbId}`);
    expect(deleting.status).toBe(202);
    await until('the database to be gone', () => call('GET', `/api/v1/databases/${dbId}`), (answer) => answer.status === 404, 60_000);
    const events = (await call('GET', `/api/v1/events?resource_id=${dbId}&limit=200`)).body.items as Array<{ message: string }>;
    expect(events.some((e) => /final backup/i.test(e.message))).toBe(true);
    const dumps = readdirSync(join(dataDir, 'local', 'backups')).filter((f) => f.endsWith('.dump'));
    expect(dumps.length).toBe(before + 1);
    expect(clusterPids(dataDir)).toEqual([]);
  });
});
