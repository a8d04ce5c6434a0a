/**
 * @module Benchmark of app deploys over SSH (the SSH runtime's apps against a loopback sshd, this
 * host reached as root): time from create to running of a Node HTTP server uploaded from a path
 * (upload as a tar stream, per-app OS user, supervisor, health check, stable-port proxy), the
 * time of a redeploy (a new release health-checked and switched), and of delete. Every figure
 * includes the host's own cost of starting a command per SSH exec (its login shell).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppDesired, AppObserved } from '../src/drivers/contract.js';
import { SshApps } from '../src/drivers/ssh/apps.js';
import { startSshRuntimeFixture } from '../test/support/ssh-runtime-fixture.js';
import type { Benchmark } from './support/benchmark.js';
import { seconds } from './support/figures.js';

const ROUNDS = 3;
const TIMEOUT_MS = 120_000;

export interface SshAppsResult {
  createMs: number[];
  redeployMs: number[];
  deleteMs: number[];
}

async function until(what: string, read: () => Promise<AppObserved | null>, done: (a: AppObserved | null) => boolean): Promise<void> {
  const end = Date.now() + TIMEOUT_MS;
  while (!done(await read())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function run(progress: (line: string) => void): Promise<SshAppsResult> {
  const source = mkdtempSync(join(tmpdir(), 'cairn-bench-ssh-app-'));
  writeFileSync(join(source, 'server.js'), "require('http').createServer((q, r) => r.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n");
  process.env.CAIRN_LOCAL_SOURCE_DIRS = source;
  // The sshd is on loopback, which the outbound guard closes to what tenants give.
  process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = 'true';
  const fixture = await startSshRuntimeFixture();
  const apps = new SshApps(fixture.options);
  const result: SshAppsResult = { createMs: [], redeployMs: [], deleteMs: [] };
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      const key = `bench-${round}-${Date.now()}`;
      const desired: AppDesired = {
        name: `bench-${round}`, placement: fixture.placement, source: { path: source }, build: null, command: 'exec node server.js',
        port: null, env: { ROUND: String(round) }, healthCheckPath: '/', state: 'running',
      };
      let started = performance.now();
      const created = await apps.create(key, desired);
      await until('the app to run', () => apps.observe({ key, externalId: created.id }), (a) => a?.status === 'running');
      result.createMs.push(performance.now() - started);
      started = performance.now();
      const updated = await apps.update(created.id, desired);
      await until('the redeploy', () => apps.observe({ key, externalId: created.id }), (a) => a?.status === 'running' && a.release === updated.release && a.servingRelease === null);
      result.redeployMs.push(performance.now() - started);
      started = performance.now();
      await apps.delete(created.id);
      result.deleteMs.push(performance.now() - started);
      progress(`round ${round}: create ${seconds(result.createMs.at(-1) ?? 0)}, redeploy ${seconds(result.redeployMs.at(-1) ?? 0)}, delete ${seconds(result.deleteMs.at(-1) ?? 0)}`);
    }
  } finally {
    await apps.close();
    await fixture.cleanup();
    rmSync(source, { recursive: true, force: true });
  }
  return result;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function format(result: SshAppsResult): string[] {
  return [
    `app create → running over SSH (median of ${result.createMs.length}): ${seconds(median(result.createMs))}`,
    `app redeploy (health-checked switch): ${seconds(median(result.redeployMs))}`,
    `app delete: ${seconds(median(result.deleteMs))}`,
  ];
}

export const sshAppsBenchmark: Benchmark<SshAppsResult> = {
  name: 'ssh-apps',
  description: 'the SSH runtime: app create → running, redeploy and delete over a loopback sshd',
  run,
  format,
};
