/**
 * @module A resource declared again while its deletion is under way is kept and made again,
 * never lost: the reconciler that finishes the delete at the vendor removes the record only if
 * its deletion is still asked for (a `serve --watch` restarted with the file back found its
 * database gone from the store this way, in the SSH crash test).
 */
import { describe, expect, it } from 'vitest';
import type { AnyStoredResource } from '../src/model/resource.js';
import { isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

// Every answer of the sandbox takes 1 s: after the delete call, the reconciler looks again a
// second later and removes the record; that is the window in which the server is declared again.
const harness = useReconcileHarness({ cloud: { latencyMs: 1_000, provisionMs: 200 } });

describe('a server declared again while it is being deleted', () => {
  it('is kept, and running again at the vendor once the delete has finished', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url), serverManifest('web-1'));
    h.controller.start();
    await h.until('web-1 running', () => isReady(h.get('Server', 'web-1')), 15_000);
    const first = h.get('Server', 'web-1').status.externalId;

    h.store.resources.requestDeletion('default', null, [{ kind: 'Server', namespace: 'default', name: 'web-1' }]);
    h.controller.readFeed();
    await h.until('the delete sent to the sandbox', () => h.get('Server', 'web-1').status.phase === 'deleting', 15_000);
    // The next pass looks at the server (and, finding it gone, removes the record): declare it
    // again while that look is held back by the sandbox's latency.
    const looks = (): number => h.cloud.stats().byRoute['GET /v1/servers/:id'] ?? 0;
    const before = looks();
    await h.until('the reconciler looking at the deleted server', () => looks() > before, 15_000);
    h.apply(serverManifest('web-1'));
    h.controller.readFeed();

    await h.until('web-1 made again and running', () => {
      const r: AnyStoredResource | undefined = h.find('Server', 'web-1');
      return r !== undefined && r.deletionTimestamp === null && isReady(r) && r.status.externalId !== first;
    }, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}; the record: ${JSON.stringify(h.find('Server', 'web-1')?.status ?? 'gone')}`);
    });
    const servers = (await h.vendor<{ servers: Array<{ id: string }> }>('GET', '/v1/servers')).body.servers;
    expect(servers.map((s) => s.id), 'one server at the sandbox, the new one').toEqual([h.get('Server', 'web-1').status.externalId]);
  });
});
