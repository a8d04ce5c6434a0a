/**
 * @module Tests of the local vendor against this host: the shared driver contract with real
 * PostgreSQL clusters (the newest version installed) and a real Node app, the host's real
 * metrics, powering its server off and on, reaping app processes left by a dead cairn, and what it refuses (other regions and sizes, versions not installed, MongoDB
 * without mongod, image sources without a container engine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../../secrets/master-key.js';
import { keyringDataKeys } from '../../secrets/sealed-stream.js';
import type { DriverConfig } from '../contract.js';
import { runCloudDriverContract, runRuntimeDriverContract, waitUntil } from '../driver.contract.js';
import { UnsupportedError, VendorRejectedError } from '../errors.js';
import { localVendor } from './index.js';
import { reapOrphanedApps } from './orphaned-apps.js';
import { postgresInstallations } from './postgres-installations.js';

const MASTER = generateMasterKey();

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-local-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function config(dataDir = tempDir()): DriverConfig {
  return { providerName: 'local', spec: { vendor: 'local' }, credentials: undefined, dataDir, requestTimeoutMs: 5_000, dataKeys: keyringDataKeys({ active: MASTER, keys: [MASTER] }) };
}

const installedMajor = postgresInstallations()[0]?.major ?? 'none';

/** A Node app that answers /healthz and says which greeting it was given. */
function nodeApp(): string {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'server.js'),
    `require('http').createServer((q, s) => s.end(process.env.GREETING || 'hi')).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on', process.env.PORT));\n`,
  );
  return dir;
}

runCloudDriverContract('local', async () => ({ driver: await localVendor.createCloudDriver(config()), cleanup: () => Promise.resolve() }));

async function passwordWorks(endpoint: { host: string; port: number; username: string; database: string }, password: string): Promise<boolean> {
  const client = new pg.Client({ ...endpoint, user: endpoint.username, password });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return false; // invalid_password
    throw error;
  }
}

runRuntimeDriverContract(
  'local',
  async () => {
    const dataDir = tempDir();
    const cloud = await localVendor.createCloudDriver(config(dataDir));
    const host = await cloud.servers.create('runtime-host', { name: 'host', region: 'local', size: 'host', image: 'debian-12' });
    const driver = await localVendor.createRuntimeDriver(config(dataDir));
    return {
      driver,
      placement: { serverExternalId: host.id, serverAddress: host.ipv4 },
      cleanup: () => cloud.close(),
      passwordWorks: (_id, endpoint, password) => passwordWorks(endpoint, password),
    };
  },
  {
    settleTimeoutMs: 60_000,
    database: { type: 'postgresql', version: installedMajor },
    app: { source: { path: nodeApp() }, build: null, command: 'node server.js', healthCheckPath: '/healthz' },
  },
);

describe('local vendor', () => {
  it('describes this host: one region, one size with its real CPU count and memory', async () => {
    const driver = await localVendor.createCloudDriver(config());
    try {
      const [size] = await driver.sizes();
      const os = await import('node:os');
      expect(size).toMatchObject({ slug: 'host', vcpus: os.cpus().length, memoryMb: Math.round(os.totalmem() / 2 ** 20), regions: ['local'] });
      expect(size?.diskGb).toBeGreaterThan(0);
      expect((await driver.regions()).map((r) => r.slug)).toEqual(['local']);
    } finally {
      await driver.close();
    }
  });

  it('refuses other regions and sizes, naming its own', async () => {
    const driver = await localVendor.createCloudDriver(config());
    try {
      await expect(driver.servers.create('k1', { name: 'x', region: 'eu-1', size: 'host', image: 'debian-12' })).rejects.toThrow(/one region, "local"/);
      await expect(driver.servers.create('k2', { name: 'x', region: 'local', size: 'small', image: 'debian-12' })).rejects.toThrow(/one size, "host"/);
    } finally {
      await driver.close();
    }
  });

  it('reports real memory and disk use, and a series that grows', async () => {
    const driver = await localVendor.createCloudDriver(config());
    try {
      const server = await driver.servers.create('metrics', { name: 'm', region: 'local', size: 'host', image: 'debian-12' });
      const first = await driver.metrics(server.id);
      expect(first.memoryPercent).toBeGreaterThan(0);
      expect(first.diskPercent).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const second = await driver.metrics(server.id);
      expect(second.series.length).toBeGreaterThan(first.series.length);
    } finally {
      await driver.close();
    }
  });

  it('refuses a PostgreSQL version that is not installed, naming those that are; MongoDB without mongod; images without a container engine', async () => {
    const dataDir = tempDir();
    const cloud = await localVendor.createCloudDriver(config(dataDir));
    const runtime = await localVendor.createRuntimeDriver(config(dataDir));
    try {
      const server = await cloud.servers.create('host', { name: 'h', region: 'local', size: 'host', image: 'debian-12' });
      const placement = { serverExternalId: server.id, serverAddress: '127.0.0.1' };
      const db = { name: 'old', type: 'postgresql' as const, version: '9', storageGb: 1, placement, password: 'x' };
      const refused = runtime.databases.create('db-9', db);
      await expect(refused).rejects.toBeInstanceOf(VendorRejectedError);
      await expect(runtime.databases.create('db-9', db)).rejects.toThrow(`PostgreSQL 9 is not installed on this host; installed: ${installedMajor} (`);
      await expect(runtime.databases.create('mongo', { ...db, type: 'mongodb', version: '7' })).rejects.toThrow(/this host has no MongoDB server/);
      const app = {
        name: 'img', placement, source: { image: 'nginx:1' }, build: null, command: null, port: 80, env: {}, healthCheckPath: null, state: 'running' as const,
      };
      await expect(runtime.apps.create('img', app)).rejects.toBeInstanceOf(UnsupportedError);
      await expect(runtime.apps.create('img', app)).rejects.toThrow(/an image source needs docker or podman on this host/);
      expect(await runtime.databases.observe({ key: 'db-9' })).toBeNull();
      expect(await runtime.apps.observe({ key: 'img' })).toBeNull();
    } finally {
      await runtime.close();
      await cloud.close();
    }
  });

  it('stops the databases and apps on a server powered off, and starts them again when it is powered on', async () => {
    const dataDir = tempDir();
    const cloud = await localVendor.createCloudDriver(config(dataDir));
    const runtime = await localVendor.createRuntimeDriver(config(dataDir));
    try {
      const server = await cloud.servers.create('host', { name: 'h', region: 'local', size: 'host', image: 'debian-12' });
      const placement = { serverExternalId: server.id, serverAddress: '127.0.0.1' };
      const password = 'power-password-0123456789';
      const db = await runtime.databases.create('db', { name: 'power-db', type: 'postgresql', version: installedMajor, storageGb: 1, placement, password });
      const app = await runtime.apps.create('app', {
        name: 'power-app', placement, source: { path: nodeApp() }, build: null, command: 'node server.js', port: null, env: { GREETING: 'on' }, healthCheckPath: '/healthz', state: 'running',
      });
      await waitUntil(() => runtime.databases.observe({ key: 'db', externalId: db.id }), (d) => d?.status === 'available', 60_000, 'database');
      await waitUntil(() => runtime.apps.observe({ key: 'app', externalId: app.id }), (a) => a?.status === 'running', 60_000, 'app');
      const endpoint = await runtime.databases.endpoint(db.id);
      const url = app.url ?? '';
      expect(await (await fetch(url)).text()).toBe('on');

      expect((await cloud.power(server.id, 'power_off')).status).toBe('stopped');
      await expect(passwordWorks(endpoint, password)).rejects.toThrow(/ECONNREFUSED/);
      await expect(fetch(url)).rejects.toThrow();
      expect((await runtime.apps.observe({ key: 'app', externalId: app.id }))?.status).toBe('stopped');
      expect((await runtime.databases.observe({ key: 'db', externalId: db.id }))?.down).toBeUndefined(); // stopped as asked, not drift

      expect((await cloud.power(server.id, 'power_on')).status).toBe('running');
      expect(await passwordWorks(endpoint, password)).toBe(true);
      expect(await waitUntil(async () => fetch(url).then((r) => r.text(), () => ''), (text) => text === 'on', 10_000, 'the app back')).toBe('on');
      await runtime.apps.delete(app.id);
      await runtime.databases.delete(db.id);
    } finally {
      await runtime.close();
      await cloud.close();
    }
  });

  it('kills app processes left behind by a cairn process that is gone, and only those', async () => {
    const hostRoot = tempDir();
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.once('exit', resolve));
    const start = (owner: number): ChildProcess =>
      spawn('sleep', ['60'], { env: { ...process.env, CAIRN_LOCAL_HOST: hostRoot, CAIRN_LOCAL_OWNER: String(owner) }, stdio: 'ignore' });
    const orphan = start(dead.pid ?? 0);
    const owned = start(process.ppid);
    try {
      await waitUntil(() => Promise.resolve(reapOrphanedApps(hostRoot)), (pids) => pids.length > 0, 5_000, 'the orphan to be found');
      await new Promise((resolve) => (orphan.exitCode !== null || orphan.signalCode !== null ? resolve(undefined) : orphan.once('exit', resolve)));
      expect(orphan.signalCode).toBe('SIGKILL');
      expect(owned.exitCode).toBeNull();
      expect(owned.signalCode).toBeNull();
    } finally {
      owned.kill('SIGKILL');
      orphan.kill('SIGKILL');
    }
  });
});

