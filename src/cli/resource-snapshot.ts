/**
 * @module Some tenants' resources as of the last refresh, for following an apply round after
 * round: the first refresh reads them all, every later one only what was written or removed
 * since (the store's revision and its tombstones), so a round costs what changed, not the fleet.
 * It keeps of each resource only what following needs (identity, generation, phase, conditions,
 * what its spec names), not its spec, labels or details: a fleet of 10,000 stays small.
 */
import type { Kind } from '../model/kinds.js';
import { referencesOf } from '../model/references.js';
import { resourceKey, type AnyStoredResource, type ResourceStatus } from '../model/resource.js';
import type { Store } from '../store/store.js';

/** What following a resource's convergence needs of it. */
export interface FollowedResource {
  uid: string;
  tenant: string;
  kind: Kind;
  namespace: string;
  name: string;
  generation: number;
  deletionTimestamp: string | null;
  status: Pick<ResourceStatus, 'phase' | 'conditions' | 'observedGeneration'>;
  /** The resources its spec names, to find a failed dependency. */
  references: Array<{ target: Kind; name: string }>;
}

function followed(r: AnyStoredResource): FollowedResource {
  return {
    uid: r.uid,
    tenant: r.tenant,
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    generation: r.generation,
    deletionTimestamp: r.deletionTimestamp,
    status: { phase: r.status.phase, conditions: r.status.conditions, observedGeneration: r.status.observedGeneration },
    references: referencesOf(r.kind, r.spec).map((ref) => ({ target: ref.target, name: ref.name })),
  };
}

export class ResourceSnapshot {
  private readonly byUid = new Map<string, FollowedResource>();
  private readonly byName = new Map<string, FollowedResource>();
  /** The store revision this snapshot is complete up to; -1 before the first refresh. */
  private revision = -1;

  constructor(private readonly store: Store, private readonly tenants: ReadonlySet<string>) {}

  /** Reads what changed since the last refresh (everything, the first time or when tombstones were pruned past it). */
  refresh(): void {
    if (this.revision < 0 || this.store.history.prunedThrough() > this.revision) {
      this.reload();
      return;
    }
    let revision = this.revision;
    for (const changed of this.store.resources.changedSince(this.revision)) {
      revision = Math.max(revision, changed.resourceVersion);
      if (!this.tenants.has(changed.tenant)) continue;
      const r = followed(changed);
      this.byUid.set(r.uid, r);
      this.byName.set(nameKey(r.tenant, r), r);
    }
    for (const removed of this.store.resources.removedSince(this.revision)) {
      revision = Math.max(revision, removed.revision);
      const gone = this.byUid.get(removed.uid);
      if (!gone) continue;
      this.byUid.delete(removed.uid);
      if (this.byName.get(nameKey(gone.tenant, gone)) === gone) this.byName.delete(nameKey(gone.tenant, gone));
    }
    this.revision = revision;
  }

  get(uid: string): FollowedResource | undefined {
    return this.byUid.get(uid);
  }

  find(tenant: string, ref: { kind: Kind; namespace: string; name: string }): FollowedResource | undefined {
    return this.byName.get(nameKey(tenant, ref));
  }

  private reload(): void {
    // The revision first: whatever is written meanwhile is read again next time, never missed.
    const revision = this.store.resources.revision();
    this.byUid.clear();
    this.byName.clear();
    for (const tenant of this.tenants) {
      for (const stored of this.store.resources.list({ tenant })) {
        const r = followed(stored);
        this.byUid.set(r.uid, r);
        this.byName.set(nameKey(tenant, r), r);
      }
    }
    this.revision = revision;
  }
}

function nameKey(tenant: string, ref: { kind: Kind; namespace: string; name: string }): string {
  return `${tenant}/${resourceKey(ref)}`;
}
