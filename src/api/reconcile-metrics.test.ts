/**
 * @module Tests of the reconcile metrics as Prometheus scrapes them, fed by a real Controller
 * reconciling against a sandbox cloud on loopback: queue depth per kind, results, errors, time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyManifest } from '../model/resource.js';
import { Controller } from '../reconcile/controller.js';
import { startSandboxCloud, type SandboxCloud } from '../sandbox-cloud/index.js';
import { Store } from '../store/store.js';
import { createMetricsRegistry, metricsRouter } from './metrics.js';
import { createReconcileMetrics, reconcileResultLabel } from './reconcile-metrics.js';

let root: string;
let cloud: SandboxCloud;
let store: Store;
let controller: Controller;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-reconcile-metrics-'));
  // Vendor latency keeps the single worker busy on the first resource while the test scrapes the queue.
  cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 0, latencyMs: 250 });
  const dataDir = join(root, 'state');
  store = Store.open(dataDir);
  const registry = createMetricsRegistry();
  const metrics = createReconcileMetrics(registry, { queueDepthByKind: () => controller.queueDepthByKind() });
  controller = new Controller(store, { dataDir, workers: 1, pollMs: 50, feedIntervalMs: 20, onReconciled: metrics.onReconciled });
  const app = express();
  app.use(metricsRouter(registry));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await controller.stop();
  await new Promise((resolve) => server.close(resolve));
  store.close();
  await cloud.close();
  rmSync(root, { recursive: true, force: true });
});

function sample(exposition: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(): Promise<string> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const provider = (endpoint: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'cloud' }, spec: { vendor: 'sandbox', endpoint } });
const serverManifest = (name: string, region: string): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Server',
  metadata: { name },
  spec: { provider: 'cloud', region, size: 'small', image: 'debian-12' },
});
const condition = (name: string, type: 'Ready' | 'Synced'): { status: string } | undefined =>
  store.resources.find('default', { kind: 'Server', namespace: 'default', name })?.status.conditions.find((c) => c.type === type);

describe('reconcile metrics', () => {
  it('shows the queue per kind, then results, errors and time per controller', async () => {
    store.resources.apply('default', 'api', [
      provider(cloud.url),
      serverManifest('web-1', 'eu-1'),
      serverManifest('web-2', 'eu-1'),
      serverManifest('nowhere', 'no-such-region'),
    ]);
    controller.start();
    const queued = await scrape();
    expect(sample(queued, 'workqueue_depth', { name: 'provider' })).toBe(0);
    expect(sample(queued, 'workqueue_depth', { name: 'server' })).toBe(3);
    expect(sample(queued, 'workqueue_depth', { name: 'database' })).toBe(0);
    expect(sample(queued, 'workqueue_depth', { name: 'app' })).toBe(0);

    await until('web-1 and web-2 ready, nowhere stalled', () =>
      condition('web-1', 'Ready')?.status === 'True' && condition('web-2', 'Ready')?.status === 'True' && condition('nowhere', 'Synced')?.status === 'False',
    );
    const done = await scrape();
    expect(sample(done, 'workqueue_depth', { name: 'server' })).toBe(0);
    // The stalled server: an error, terminal (not retried until its spec changes).
    expect(sample(done, 'controller_runtime_reconcile_total', { controller: 'server', result: 'error' })).toBe(1);
    expect(sample(done, 'controller_runtime_reconcile_errors_total', { controller: 'server' })).toBe(1);
    expect(sample(done, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'server' })).toBe(1);
    // Created servers are looked at again (provisioning polls, then the drift resync).
    const requeued = sample(done, 'controller_runtime_reconcile_total', { controller: 'server', result: 'requeue_after' }) ?? 0;
    expect(requeued).toBeGreaterThanOrEqual(2);
    const serverTotal = requeued + 1 + (sample(done, 'controller_runtime_reconcile_total', { controller: 'server', result: 'success' }) ?? 0);
    expect(sample(done, 'controller_runtime_reconcile_time_seconds_count', { controller: 'server' })).toBe(serverTotal);
    expect(sample(done, 'controller_runtime_reconcile_errors_total', { controller: 'provider' })).toBe(0);
    expect(sample(done, 'controller_runtime_reconcile_time_seconds_count', { controller: 'provider' })).toBeGreaterThanOrEqual(1);
    expect(sample(done, 'controller_runtime_reconcile_total', { controller: 'app', result: 'success' })).toBe(0);
  });
});

describe('reconcileResultLabel', () => {
  const failure = (kind: 'stall' | 'wait' | 'retry'): Parameters<typeof reconcileResultLabel>[0] => ({
    ok: false,
    failure: { kind, reason: 'R', message: 'm', retryAfterMs: 0 },
    becameFailed: false,
  });
  it.each([
    [{ ok: true as const, result: {}, becameReady: false, becameFailed: false }, 'success'],
    [{ ok: true as const, result: { requeueAfterMs: 1000 }, becameReady: true, becameFailed: false }, 'requeue_after'],
    [failure('wait'), 'requeue_after'],
    [failure('retry'), 'error'],
    [failure('stall'), 'error'],
  ])('labels %o as %s', (outcome, label) => {
    expect(reconcileResultLabel(outcome)).toBe(label);
  });
});
