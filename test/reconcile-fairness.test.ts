/**
 * @module One slow vendor cannot starve the others (issue #22, item 4): with a provider whose
 * every answer takes 3 s, at its concurrency cap with many servers queued, another provider's
 * single server is created and ready while not one of the slow provider's has come back yet.
 * Work at a cap waits with the cap, not in a worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxCloud, type SandboxCloud } from '../src/sandbox-cloud/index.js';
import type { AnyManifest } from '../src/model/resource.js';
import { isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const SLOW_SERVERS = 120;
// Few workers and a small cap make the old behaviour (workers blocked on the slow provider's cap) certain.
const harness = useReconcileHarness({ cloud: { latencyMs: 3_000, provisionMs: 0 }, controller: { workers: 8, perProvider: 4 } });
let fast: SandboxCloud;
const root = mkdtempSync(join(tmpdir(), 'cairn-fairness-'));

beforeAll(async () => {
  fast = await startSandboxCloud({ dataDir: join(root, 'fast'), port: 0, provisionMs: 0 });
});
afterAll(async () => {
  await fast?.close();
  rmSync(root, { recursive: true, force: true });
});

const named = (manifest: AnyManifest, name: string): AnyManifest => ({ ...manifest, metadata: { ...manifest.metadata, name } });

describe('a slow provider at its cap', () => {
  it("does not hold the workers another provider's work needs", async () => {
    const h = harness();
    const slowServers = Array.from({ length: SLOW_SERVERS }, (_, i) => serverManifest(`slow-${i}`));
    h.apply(providerManifest(h.cloud.url), named(providerManifest(fast.url), 'quick'), ...slowServers);
    h.controller.start();
    // The slow provider's cap is busy and the rest of its servers are queued behind it.
    await h.until('the slow provider at its cap', () => h.cloud.stats().requests >= 4, 20_000);
    h.apply(serverManifest('quick-1', { provider: 'quick' }));
    await h.until('the quick provider\'s server ready', () => isReady(h.get('Server', 'quick-1')), 20_000);
    const slowReady = slowServers.filter((s) => isReady(h.get('Server', s.metadata.name))).length;
    expect(isReady(h.get('Server', 'quick-1'))).toBe(true);
    expect(slowReady, 'slow servers ready before the quick one').toBeLessThan(SLOW_SERVERS / 10);
  });
});
