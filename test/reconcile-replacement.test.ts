/**
 * @module A replacement leaks nothing and is not drift (issue #22, items 1 and 2): a server moved
 * to another provider while it is still provisioning is deleted at the first and created at the
 * second, and its events say Replacing, never DriftDetected; a size change made while it
 * provisions is applied once it is up.
 */
import { describe, expect, it } from 'vitest';
import type { AnyManifest } from '../src/model/resource.js';
import { isReady, providerManifest, renamed, serverManifest, useAnotherSandboxCloud, useReconcileHarness, type Harness } from './support/reconcile-harness.js';
import { inventory } from './support/vendor-inventory.js';

// The first provider's servers provision for a long while: the move happens in the middle of it.
const harness = useReconcileHarness({ cloud: { provisionMs: 60_000 } });
const secondCloud = useAnotherSandboxCloud({ provisionMs: 100 });

const secondProvider = (): AnyManifest => renamed(providerManifest(secondCloud().url), 'second');
const liveServers = async (url: string): Promise<string[]> => (await inventory(url)).servers.filter((s) => s.status !== 'deleted' && s.status !== 'deleting').map((s) => s.name);
const reasons = (h: Harness, name: string): string[] => h.store.events.list({ tenant: 'default', uid: h.get('Server', name).uid, limit: 100 }).map((e) => e.reason);

describe('a server moved while it provisions', () => {
  it('is deleted where it was being made, created at the new place, and reported as a replacement', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url), secondProvider(), serverManifest('web-1'));
    h.controller.start();
    await h.until('web-1 provisioning at the first provider', () => h.get('Server', 'web-1').status.externalId != null && h.get('Server', 'web-1').status.phase === 'provisioning');
    expect(await liveServers(h.cloud.url)).toEqual(['web-1']);

    h.apply(serverManifest('web-1', { provider: 'second' }));
    await h.until('web-1 ready at the second provider', () => isReady(h.get('Server', 'web-1')), 20_000);

    expect(await liveServers(secondCloud().url)).toEqual(['web-1']);
    expect(await liveServers(h.cloud.url)).toEqual([]);
    expect(reasons(h, 'web-1')).toContain('Replacing');
    expect(reasons(h, 'web-1')).not.toContain('DriftDetected');
  });

  it('takes a size change made while it provisions once it is up', async () => {
    const h = harness();
    h.apply(secondProvider(), serverManifest('web-2', { provider: 'second' }));
    h.controller.start();
    await h.until('web-2 created', () => h.get('Server', 'web-2').status.externalId != null);
    h.apply(serverManifest('web-2', { provider: 'second', size: 'medium' }));
    await h.until('web-2 ready at its new size', () => isReady(h.get('Server', 'web-2')) && h.get('Server', 'web-2').status.observedGeneration === 2, 20_000);
    expect((await inventory(secondCloud().url)).servers.find((s) => s.name === 'web-2')?.size).toBe('medium');
  });
});

describe('a ready server moved to another region', () => {
  it('is replaced, and its events say so without a word of drift', async () => {
    const h = harness();
    h.apply(secondProvider(), serverManifest('web-3', { provider: 'second' }));
    h.controller.start();
    await h.until('web-3 ready', () => isReady(h.get('Server', 'web-3')), 20_000);
    const first = h.get('Server', 'web-3').status.externalId;
    h.apply(serverManifest('web-3', { provider: 'second', region: 'us-1' }));
    await h.until('web-3 ready in us-1', () => isReady(h.get('Server', 'web-3')) && h.get('Server', 'web-3').status.externalId !== first, 20_000);
    expect((await inventory(secondCloud().url)).servers.filter((s) => s.name === 'web-3' && s.status !== 'deleted' && s.status !== 'deleting')).toHaveLength(1);
    expect(reasons(h, 'web-3')).toContain('Replacing');
    expect(reasons(h, 'web-3')).not.toContain('DriftDetected');
  });
});
