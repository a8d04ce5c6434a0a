/**
 * @module Crash safety over SSH: `cairn serve --watch` reconciling examples/ssh (a bring-your-own
 * host behind a real sshd on loopback, a PostgreSQL database and an app placed on it) is killed
 * with SIGKILL at seeded moments (`CAIRN_CRASH_SEED` replays) while the database and the app are
 * declared or removed — mid-create, mid-deploy, mid-backup-before-delete. After every kill the
 * host holds at most one cluster and one record per database and one record per app, and no
 * cluster without its record; a last start converges to exactly one cluster and one app process
 * (apps outlive cairn on a host, so a rollout cut short may leave its new release running until
 * then), and removing them leaves no cluster, record or process behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from './support/cairn-process.js';
import { killAtSeededMoments, startWatchingServe, untilPhases, workloadPhases, type WatchingServe } from './support/serve-crashes.js';
import { sshExampleOnLoopback } from './support/ssh-example.js';
import type { RunningSshd } from './support/sshd.js';
import { until } from './support/until.js';

const KILLS = Number(process.env.CAIRN_CRASH_SSH_KILLS ?? 6);

const root = mkdtempSync(join(tmpdir(), 'cairn-crash-ssh-'));
const example = join(root, 'example');
const manifests = join(root, 'manifests');
const dataDir = join(root, 'state');
const runtimeDir = join(root, 'host-runtime');
const ENV = { CAIRN_LOCAL_SOURCE_DIRS: root, CAIRN_POLL_MS: '100', CAIRN_LOG_LEVEL: 'info' };
let sshd: RunningSshd;

/** Declares the database and the app, or removes them (the provider and the server stay). */
function declare(withWorkloads: boolean): void {
  for (const file of ['provider.yaml', 'server.yaml', 'database.yaml', 'app.yaml']) {
    const path = join(manifests, file);
    if (withWorkloads || file === 'provider.yaml' || file === 'server.yaml') writeFileSync(path, readFileSync(join(example, file)));
    else if (existsSync(path)) unlinkSync(path);
  }
}

function filesIn(...parts: string[]): string[] {
  const dir = join(runtimeDir, ...parts);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** The host's records of databases and apps, by name. */
function hostRecords(kind: 'databases' | 'apps'): Array<{ id: string; name: string }> {
  return filesIn('records', kind).map((file) => JSON.parse(readFileSync(join(runtimeDir, 'records', kind, file), 'utf8')) as { id: string; name: string });
}

/** Live processes of the example app (python3 server.py) running from this host's runtime directory. */
function appProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The program itself (python3 server.py), not the `sh -c` its command line runs in.
      const [program = '', ...args] = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (/python/.test(program) && args.includes('server.py') && readlinkSync(`/proc/${entry}/cwd`).startsWith(runtimeDir)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

function world(): string {
  return JSON.stringify({ databases: hostRecords('databases'), clusters: filesIn('databases'), apps: hostRecords('apps'), processes: appProcesses() });
}

function startServe(): WatchingServe {
  return startWatchingServe(dataDir, manifests, ENV, root);
}

function phases(): Record<string, string> {
  return workloadPhases(dataDir);
}

/** What must hold whenever cairn is not running, whatever moment it died at. */
function expectNothingDoubled(context: string): void {
  const databases = hostRecords('databases');
  expect(databases.filter((d) => d.name === 'hello-db').length, `${context}: database records ${world()}`).toBeLessThanOrEqual(1);
  expect(hostRecords('apps').filter((a) => a.name === 'hello').length, `${context}: app records ${world()}`).toBeLessThanOrEqual(1);
  const recorded = new Set(databases.map((d) => d.id));
  expect(filesIn('databases').filter((id) => !recorded.has(id)), `${context}: clusters without a record ${world()}`).toEqual([]);
}

describe('SIGKILL of cairn serve with a database and an app on a host over SSH', () => {
  beforeAll(async () => {
    mkdirSync(manifests);
    sshd = await sshExampleOnLoopback({ dataDir, runtimeDir, exampleDir: example });
  });

  afterAll(async () => {
    declare(false);
    const serve = startServe();
    await until('the database and the app to be removed', () => Promise.resolve(phases()), (p) => Object.keys(p).length === 0, 60_000).catch(() => undefined);
    serve.child.kill('SIGTERM');
    await collect(serve.child, { timeoutMs: 30_000 }).catch(() => undefined);
    for (const pid of appProcesses()) process.kill(pid, 'SIGKILL');
    await sshd?.stop({ remove: true });
    rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it(`never doubles a cluster or an app over ${KILLS} kills, then converges and cleans up`, async () => {
    const seed = await killAtSeededMoments({
      label: 'crash test over SSH', kills: KILLS, declare, start: startServe,
      afterKill: (context) => expectNothingDoubled(context),
    });

    declare(true);
    const serve = startServe();
    try {
      const context = (): string => `seed ${seed}, host: ${world()}`;
      await untilPhases(serve, dataDir, 'the database and the app to be up', (p) => p['hello-db'] === 'available' && p['hello'] === 'running', context);
      expect(hostRecords('databases').map((d) => d.name), `seed ${seed}: ${world()}`).toEqual(['hello-db']);
      expect(filesIn('databases'), `seed ${seed}: ${world()}`).toEqual(hostRecords('databases').map((d) => d.id));
      expect(hostRecords('apps').map((a) => a.name), `seed ${seed}: ${world()}`).toEqual(['hello']);
      const running = await until('one app process', () => Promise.resolve(appProcesses()), (p) => p.length === 1, 30_000);
      expect(running).toHaveLength(1);

      declare(false);
      await untilPhases(serve, dataDir, 'the database and the app to be removed', (p) => p['hello-db'] === undefined && p['hello'] === undefined, context);
      expect(hostRecords('databases'), `seed ${seed}: ${world()}`).toEqual([]);
      expect(hostRecords('apps'), `seed ${seed}: ${world()}`).toEqual([]);
      expect(filesIn('databases'), `seed ${seed}: ${world()}`).toEqual([]);
      await until('no app process left', () => Promise.resolve(appProcesses()), (p) => p.length === 0, 30_000);
    } finally {
      serve.child.kill('SIGTERM');
      await collect(serve.child, { timeoutMs: 30_000 }).catch(() => undefined);
    }
  }, 600_000);
});
