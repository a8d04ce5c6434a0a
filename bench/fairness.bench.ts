/**
 * @module Benchmark: one slow vendor must not starve the others (issue #22, item 4). Provider A
 * answers every request in 5 s and has 500 servers queued; provider B answers at once. With the
 * controller's production defaults (64 workers, 32 per provider), how long B's one server takes
 * from being applied to Ready, and how many of A's were ready by then.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyManifest } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { startSandboxCloud } from '../src/sandbox-cloud/index.js';
import { Store } from '../src/store/store.js';
import type { Benchmark } from './support/benchmark.js';
import { count, seconds } from './support/figures.js';

const SLOW_SERVERS = 500;
const SLOW_LATENCY_MS = 5_000;

export interface FairnessResult {
  slowServers: number;
  slowLatencyMs: number;
  quickReadyMs: number;
  slowReadyByThen: number;
}

const provider = (name: string, endpoint: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name }, spec: { vendor: 'sandbox', endpoint } });
const server = (name: string, providerName: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name }, spec: { provider: providerName, region: 'eu-1', size: 'small' } });

async function run(progress: (line: string) => void): Promise<FairnessResult> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-fairness-'));
  process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = 'true';
  const slow = await startSandboxCloud({ dataDir: join(root, 'slow'), port: 0, provisionMs: 0, latencyMs: SLOW_LATENCY_MS });
  const quick = await startSandboxCloud({ dataDir: join(root, 'quick'), port: 0, provisionMs: 0 });
  const store = Store.open(join(root, 'state'));
  const controller = new Controller(store, { dataDir: join(root, 'state'), pollMs: 100, feedIntervalMs: 20 });
  try {
    store.resources.apply('default', 'api', [provider('slow', slow.url), provider('quick', quick.url), ...Array.from({ length: SLOW_SERVERS }, (_, i) => server(`slow-${i}`, 'slow'))]);
    controller.start();
    while (slow.stats().requests < 32) await new Promise((resolve) => setTimeout(resolve, 20));
    progress(`provider A at its cap with ${SLOW_SERVERS} servers queued; applying B's server`);
    const started = performance.now();
    store.resources.apply('default', 'api', [server('quick-1', 'quick')]);
    controller.readFeed();
    const ready = (name: string): boolean =>
      store.resources.find('default', { kind: 'Server', namespace: 'default', name })?.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    while (!ready('quick-1')) {
      if (performance.now() - started > 120_000) throw new Error("B's server was not ready within 120 s");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const quickReadyMs = performance.now() - started;
    const slowReadyByThen = Array.from({ length: SLOW_SERVERS }, (_, i) => `slow-${i}`).filter(ready).length;
    return { slowServers: SLOW_SERVERS, slowLatencyMs: SLOW_LATENCY_MS, quickReadyMs, slowReadyByThen };
  } finally {
    await controller.stop();
    store.close();
    await slow.close();
    await quick.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function format(r: FairnessResult): string[] {
  return [
    `fairness: provider A answers in ${seconds(r.slowLatencyMs, 0)} with ${count(r.slowServers)} servers queued; provider B's one server`,
    `  B's server Ready after ${seconds(r.quickReadyMs)} (target < 2 s); A's servers ready by then: ${count(r.slowReadyByThen)}`,
  ];
}

export const fairnessBenchmark: Benchmark<FairnessResult> = {
  name: 'fairness',
  description: "one slow vendor at its cap cannot starve another: time to Ready of the other provider's server",
  run,
  format,
};
