/**
 * @module Crash safety on the local vendor: `cairn serve --watch` reconciling a real PostgreSQL
 * database and a real app process on this host is killed with SIGKILL at random moments (seeded:
 * `CAIRN_CRASH_SEED` replays), while the database and the app are declared or removed. After
 * every kill this host holds at most one cluster and one record per database and at most one
 * process per app, and no cluster without its record; a last start converges to exactly one of
 * each, and removing them leaves no cluster and no process behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../src/drivers/local/orphaned-apps.js';
import { postgresInstallations } from '../src/drivers/local/postgres-installations.js';
import type { LocalState } from '../src/drivers/local/state-file.js';
import { collect } from './support/cairn-process.js';
import { killAtSeededMoments, startWatchingServe, untilPhases, type WatchingServe } from './support/serve-crashes.js';
import { stopLocalClusters } from './support/local-clusters.js';
import { until } from './support/until.js';

const KILLS = Number(process.env.CAIRN_CRASH_LOCAL_KILLS ?? 8);
const VERSION = postgresInstallations()[0]?.major;
const APP = 'crash-app';
const DATABASE = 'crash-db';

const root = mkdtempSync(join(tmpdir(), 'cairn-crash-local-'));
const manifests = join(root, 'manifests');
const appDir = join(root, 'app');
const dataDir = join(root, 'state');
const hostRoot = join(dataDir, 'local');
const ENV = { CAIRN_LOCAL_SOURCE_DIRS: root, CAIRN_LOCAL_HEALTH_TIMEOUT_MS: '5000', CAIRN_POLL_MS: '100' };

const declared = {
  'provider.yaml': 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: host }\nspec: { vendor: local }\n',
  'server.yaml': 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: this-host }\nspec: { provider: host, region: local, size: host }\n',
  'database.yaml': `apiVersion: cairn.dev/v1\nkind: Database\nmetadata: { name: ${DATABASE} }\nspec: { type: postgresql, server: this-host, version: "${VERSION}", storageGb: 1 }\n`,
  'app.yaml': `apiVersion: cairn.dev/v1\nkind: App\nmetadata: { name: ${APP} }\nspec:\n  server: this-host\n  source: { path: "${appDir}" }\n  command: "exec node server.js"\n  env: { CRASH_APP: ${APP} }\n  healthCheck: { path: /healthz }\n`,
};

/** Declares the database and the app, or removes them (the provider and server stay). */
function declare(withWorkloads: boolean): void {
  for (const [file, text] of Object.entries(declared)) {
    const path = join(manifests, file);
    if (withWorkloads || file === 'provider.yaml' || file === 'server.yaml') writeFileSync(path, text);
    else if (existsSync(path)) unlinkSync(path);
  }
}

function localState(): LocalState {
  const path = join(hostRoot, 'state.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as LocalState) : { servers: [], databases: [], backups: [], apps: [] };
}

/** The ids of the PostgreSQL clusters on disk (initialised or begun). */
function clusterIds(): string[] {
  const dir = join(hostRoot, 'postgres');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Live processes of this host's app `name`, with the cairn process that started each. */
function appProcesses(name: string): Array<{ pid: number; owner: number }> {
  const found: Array<{ pid: number; owner: number }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let vars: string[];
    try {
      vars = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!vars.includes(`CAIRN_LOCAL_HOST=${hostRoot}`) || !vars.includes(`CRASH_APP=${name}`)) continue;
    const owner = Number(vars.find((v) => v.startsWith('CAIRN_LOCAL_OWNER='))?.slice('CAIRN_LOCAL_OWNER='.length));
    if (processAlive(Number(entry))) found.push({ pid: Number(entry), owner });
  }
  return found;
}

/** What this host holds, for the assertions' messages. */
function world(): string {
  const state = localState();
  return JSON.stringify({ databases: state.databases.map((d) => `${d.name}:${d.id}:${d.status}`), apps: state.apps.map((a) => `${a.name}:${a.id}`), clusters: clusterIds(), processes: appProcesses(APP) });
}

function startServe(): WatchingServe {
  return startWatchingServe(dataDir, manifests, ENV);
}

/** Every invariant that must hold whenever cairn is not running, whatever moment it died at. */
function expectNothingLeakedOrDoubled(context: string): void {
  const state = localState();
  expect(state.databases.filter((d) => d.name === DATABASE).length, `${context}: database records ${world()}`).toBeLessThanOrEqual(1);
  expect(state.apps.filter((a) => a.name === APP).length, `${context}: app records ${world()}`).toBeLessThanOrEqual(1);
  const recorded = new Set(state.databases.map((d) => d.id));
  expect(clusterIds().filter((id) => !recorded.has(id)), `${context}: clusters without a record ${world()}`).toEqual([]);
  expect(appProcesses(APP).length, `${context}: app processes ${world()}`).toBeLessThanOrEqual(1);
}

beforeAll(() => {
  if (VERSION === undefined) throw new Error('this test needs PostgreSQL server binaries (initdb, pg_ctl); install postgresql');
  mkdirSync(manifests);
  mkdirSync(appDir);
  writeFileSync(
    join(appDir, 'server.js'),
    `require('http').createServer((req, res) => res.end(req.url === '/healthz' ? 'ok' : String(process.pid))).listen(Number(process.env.PORT), '127.0.0.1');\n`,
  );
});

afterAll(async () => {
  for (const { pid } of appProcesses(APP)) process.kill(pid, 'SIGKILL');
  await stopLocalClusters(dataDir);
  rmSync(root, { recursive: true, force: true });
});

describe('SIGKILL of cairn serve on the local vendor', () => {
  it(`never leaks or doubles a cluster or an app process over ${KILLS} kills, then converges and cleans up`, async () => {
    const seed = await killAtSeededMoments({
      label: 'crash test against the local vendor', kills: KILLS, declare, start: startServe,
      afterKill: (context) => expectNothingLeakedOrDoubled(context),
    });

    declare(true);
    const serve = startServe();
    try {
      const context = (): string => `seed ${seed}, host: ${world()}`;
      await untilPhases(serve, dataDir, 'the database and the app to be up', (p) => p[DATABASE] === 'available' && p[APP] === 'running', context);
      const state = localState();
      expect(state.databases.map((d) => d.name), `seed ${seed}: ${world()}`).toEqual([DATABASE]);
      expect(clusterIds(), `seed ${seed}: ${world()}`).toEqual(state.databases.map((d) => d.id));
      expect(state.apps.map((a) => a.name), `seed ${seed}: ${world()}`).toEqual([APP]);
      const running = await until('one app process, run by this serve', () => Promise.resolve(appProcesses(APP)), (p) => p.length === 1 && p[0]?.owner === serve.child.pid, 30_000);
      expect(running).toHaveLength(1);

      declare(false);
      await untilPhases(serve, dataDir, 'the database and the app to be removed', (p) => p[DATABASE] === undefined && p[APP] === undefined, context);
      expect(localState().databases, `seed ${seed}: ${world()}`).toEqual([]);
      expect(localState().apps, `seed ${seed}: ${world()}`).toEqual([]);
      expect(clusterIds(), `seed ${seed}: ${world()}`).toEqual([]);
      await until('no app process left', () => Promise.resolve(appProcesses(APP)), (p) => p.length === 0, 30_000);
    } finally {
      serve.child.kill('SIGTERM');
      await collect(serve.child, { timeoutMs: 30_000 }).catch(() => undefined);
    }
  }, 600_000);
});
