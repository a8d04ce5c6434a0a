/**
 * @module One slow vendor cannot starve the others (issue #22, item 4): with a provider whose
 * every answer takes 3 s, at its concurrency cap with many servers queued, another provider's
 * single server is created and ready while not one of the slow provider's has come back yet.
 * Work at a cap waits with the cap, not in a worker.
 */
import { describe, expect, it } from 'vitest';
import { isReady, providerManifest, renamed, serverManifest, useAnotherSandboxCloud, useReconcileHarness } from './support/reconcile-harness.js';

const SLOW_SERVERS = 120;
// Few workers and a small cap make the old behaviour (workers blocked on the slow provider's cap) certain.
const harness = useReconcileHarness({ cloud: { latencyMs: 3_000, provisionMs: 0 }, controller: { workers: 8, perProvider: 4 } });
const fastCloud = useAnotherSandboxCloud();

describe('a slow provider at its cap', () => {
  it("does not hold the workers another provider's work needs", async () => {
    const h = harness();
    const slowServers = Array.from({ length: SLOW_SERVERS }, (_, i) => serverManifest(`slow-${i}`));
    h.apply(providerManifest(h.cloud.url), renamed(providerManifest(fastCloud().url), 'quick'), ...slowServers);
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
