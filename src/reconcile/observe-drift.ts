/**
 * @module Looks at the world for `cairn plan --refresh`: each recorded server, database and app is
 * observed through its driver, read-only (no event, no status write, nothing sent but reads), and
 * compared with what cairn last converged.
 */
import type { DriftItem } from '../model/drift.js';
import { selfHeals, type AnyStoredResource } from '../model/resource.js';
import type { Store } from '../store/store.js';
import type { ReconcileContext } from './context.js';
import { driverPoolFor } from './driver-pool.js';
import { observeAppDrift } from './reconcile-app.js';
import { observeDatabaseDrift } from './reconcile-database.js';
import { observeServerDrift } from './reconcile-server.js';

function changesOf(ctx: ReconcileContext, r: AnyStoredResource): Promise<string[]> {
  switch (r.kind) {
    case 'Server':
      return observeServerDrift(ctx, r);
    case 'Database':
      return observeDatabaseDrift(ctx, r);
    case 'App':
      return observeAppDrift(ctx, r);
    case 'Provider':
    case 'SSHKey':
    case 'AlertRule':
      return Promise.resolve([]);
  }
}

/** The drift of each resource that has any (in the order given). */
export async function observeDrift(store: Store, dataDir: string, resources: readonly AnyStoredResource[], options: { requestTimeoutMs?: number } = {}): Promise<DriftItem[]> {
  const drivers = driverPoolFor(store, dataDir, options.requestTimeoutMs ?? 10_000);
  const ctx: ReconcileContext = {
    store, drivers, pollMs: 1_000, now: () => new Date(), resyncMs: () => 600_000,
    record: () => undefined, wake: () => undefined, wakeWaiting: () => undefined,
  };
  try {
    const items: DriftItem[] = [];
    for (const r of resources) {
      const selfHeal = selfHeals(r);
      try {
        const changes = await changesOf(ctx, r);
        if (changes.length > 0) items.push({ kind: r.kind, namespace: r.namespace, name: r.name, changes, selfHeal });
      } catch (error) {
        items.push({ kind: r.kind, namespace: r.namespace, name: r.name, changes: [error instanceof Error ? error.message : String(error)], selfHeal, unobservable: true });
      }
    }
    return items;
  } finally {
    await drivers.close();
  }
}
