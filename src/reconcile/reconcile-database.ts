/**
 * @module Databases: placed on a Ready server through its provider's runtime; storage and
 * version changed in place, engine or server changes replace it; `deletionPolicy: Orphan`
 * leaves it at the vendor when the resource is deleted.
 */
import type { DatabaseDesired, DatabaseObserved } from '../drivers/contract.js';
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { reconcileManaged, type ManagedAdapter, type Progress } from './managed.js';
import { placementOf } from './placement.js';
import type { StatusDraft } from './status-draft.js';

const databaseAdapter: ManagedAdapter<'Database', DatabaseDesired, DatabaseObserved> = {
  kind: 'Database',
  creatingPhase: 'creating',
  deletingPhase: 'deleting',

  async connect(ctx, r, spec, purpose) {
    const placed = await placementOf(ctx, r, spec.server, purpose);
    return { client: placed.runtime.databases, vendor: placed.vendor };
  },

  async desired(ctx, r) {
    const placed = await placementOf(ctx, r, r.spec.server, 'converge');
    return { name: r.name, type: r.spec.type, version: r.spec.version, storageGb: r.spec.storageGb ?? null, placement: placed.placement };
  },

  drift(_r, desired, observed) {
    const changes: string[] = [];
    if (observed.storageGb !== desired.storageGb) changes.push(`storageGb: ${observed.storageGb ?? 'none'} → ${desired.storageGb ?? 'none'}`);
    if (observed.version !== desired.version) changes.push(`version: ${observed.version} → ${desired.version}`);
    return changes;
  },

  progress(_r, observed): Progress {
    switch (observed.status) {
      case 'available':
        return { phase: 'available', settled: true };
      case 'error':
        return { phase: 'error', settled: true, failed: `the vendor reports database ${observed.id} in error` };
      default:
        return { phase: observed.status, settled: false };
    }
  },

  endpoints(observed) {
    return { host: observed.host, port: observed.port };
  },

  details(observed) {
    return { engineVersion: observed.engineVersion };
  },

  orphanOnDelete(r) {
    return r.spec.deletionPolicy === 'Orphan';
  },
};

export function reconcileDatabase(ctx: ReconcileContext, r: StoredResource<'Database'>, draft: StatusDraft): Promise<ReconcileResult> {
  return reconcileManaged(ctx, r, draft, databaseAdapter);
}
