/**
 * @module No driver call can hang a worker (issue #22, item 5). With a vendor that answers slower
 * than a call's deadline, the call is abandoned: the worker goes on (another provider's server
 * converges on the one worker there is), the server's status and a Warning event say which call
 * ran past which deadline, and once the vendor speeds up the create is retried under the same
 * idempotency key — exactly one server at the vendor. A controller stopped while a create is in
 * flight cancels it without recording a failure, and a new controller on the same data dir finds
 * the server the vendor made meanwhile by its key instead of making another.
 */
import { describe, expect, it } from 'vitest';
import { Controller } from '../src/reconcile/controller.js';
import { idempotencyKey } from '../src/reconcile/idempotency.js';
import {
  condition, isReady, providerManifest, renamed, serverManifest, useAnotherSandboxCloud, useReconcileHarness, type Harness,
} from './support/reconcile-harness.js';
import { inventory } from './support/vendor-inventory.js';

const SLOW_MS = 4_000;

async function serversNamed(url: string, name: string): Promise<Array<{ name: string; client_token: string }>> {
  return (await inventory(url)).servers.filter((s) => s.name === name);
}

function reasons(h: Harness, uid: string): string[] {
  return h.store.events.list({ tenant: 'default', uid, limit: 500 }).map((e) => e.reason);
}

describe('a vendor slower than the deadline', () => {
  // One worker: had it waited for the slow vendor, the other provider's server would have waited too.
  const harness = useReconcileHarness({
    cloud: { provisionMs: 0 },
    controller: { workers: 1, requestTimeoutMs: 60_000, deadlines: { observe: 300, write: 300 } },
  });
  const quickCloud = useAnotherSandboxCloud();

  it('frees the worker, says why, and ends with exactly one server once the vendor speeds up', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url), renamed(providerManifest(quickCloud().url), 'quick'));
    h.controller.start();
    await h.until('both providers valid', () => h.get('Provider', 'cloud').status.phase === 'valid' && h.get('Provider', 'quick').status.phase === 'valid');

    h.cloud.setFaults({ latencyMs: SLOW_MS });
    try {
      h.apply(serverManifest('slow-1'), serverManifest('quick-1', { provider: 'quick' }));
      await h.until('the slow server to say its create ran past its deadline', () => condition(h.get('Server', 'slow-1'), 'Synced')?.reason === 'DeadlineExceeded');
      const synced = condition(h.get('Server', 'slow-1'), 'Synced');
      expect(synced?.message).toMatch(/create failed: servers\.create took longer than its deadline of 300 ms and was abandoned \(retrying\)/);
      expect(reasons(h, h.get('Server', 'slow-1').uid)).toContain('DeadlineExceeded');
      // The abandoned create was recorded first, so the retry sends the same key.
      expect(h.store.operations.get(h.get('Server', 'slow-1').uid, 'create')?.idempotencyKey).toBe(idempotencyKey(h.get('Server', 'slow-1').uid, 0));

      await h.until("the other provider's server ready", () => isReady(h.get('Server', 'quick-1')));
      // It converged while the slow vendor still held what it was sent: the worker did not wait for it.
      expect(h.cloud.stats().delayed).toBeGreaterThan(0);
      expect(isReady(h.get('Server', 'slow-1'))).toBe(false);
    } finally {
      h.cloud.setFaults({ latencyMs: 0 });
    }

    await h.until('the slow server ready', () => isReady(h.get('Server', 'slow-1')), 20_000);
    // Every create sent while it was slow has been answered by now.
    await h.until('the slow vendor to answer all it held', () => h.cloud.stats().delayed === 0, 20_000);
    const slow = h.get('Server', 'slow-1');
    expect(h.cloud.stats().byRoute['POST /v1/servers']).toBeGreaterThan(1);
    const made = await serversNamed(h.cloud.url, 'slow-1');
    expect(made).toHaveLength(1);
    expect(made[0]?.client_token).toBe(idempotencyKey(slow.uid, 0));
    expect(h.store.operations.get(slow.uid, 'create')).toBeUndefined();
  }, 60_000);
});

describe('a controller stopped while a create is in flight', () => {
  const harness = useReconcileHarness({ cloud: { provisionMs: 0 } });

  it('cancels it without recording a failure, and a new controller adopts what the vendor made', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url));
    h.controller.start();
    await h.until('the provider valid', () => h.get('Provider', 'cloud').status.phase === 'valid');

    h.cloud.setFaults({ latencyMs: SLOW_MS });
    const creates = (): number => h.cloud.stats().byRoute['POST /v1/servers'] ?? 0;
    let next: Controller | undefined;
    try {
      h.apply(serverManifest('resumed'));
      await h.until('the create to reach the vendor', () => creates() === 1);
      await h.controller.stop();
      // Stopped without waiting for the vendor, and the cancelled call is no failure of the server.
      expect(h.cloud.stats().delayed).toBe(1);
      const stopped = h.get('Server', 'resumed');
      expect(stopped.status.conditions.filter((c) => c.status === 'False' && c.type === 'Synced')).toEqual([]);
      expect(h.store.events.list({ tenant: 'default', uid: stopped.uid, limit: 100 }).filter((e) => e.type === 'Warning')).toEqual([]);
      expect(h.store.operations.get(stopped.uid, 'create')?.idempotencyKey).toBe(idempotencyKey(stopped.uid, 0));

      // The vendor answers the create nobody waits for any more.
      h.cloud.setFaults({ latencyMs: 0 });
      await h.until('the vendor to answer the create', () => h.cloud.stats().delayed === 0);
      expect(await serversNamed(h.cloud.url, 'resumed')).toHaveLength(1);

      next = new Controller(h.store, { dataDir: h.dataDir, pollMs: 50, feedIntervalMs: 20 });
      next.start();
      await h.until('the server ready under the new controller', () => isReady(h.get('Server', 'resumed')));
    } finally {
      h.cloud.setFaults({ latencyMs: 0 });
      await next?.stop();
    }
    const resumed = h.get('Server', 'resumed');
    expect(await serversNamed(h.cloud.url, 'resumed')).toHaveLength(1);
    expect(creates()).toBe(1);
    expect(reasons(h, resumed.uid)).toContain('Adopted');
  }, 60_000);
});
