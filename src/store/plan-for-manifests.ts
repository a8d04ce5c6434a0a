/**
 * @module The plan of a set of manifests against the store: desired = the manifests, recorded =
 * what the data dir holds for the tenant (the default one unless named). Without prune, only the resources the
 * manifests name are considered (like `kubectl apply`); with it, the rest are deletions — of one
 * source's resources only when `source` is given (a pull request's plan against a git source).
 * The revision a source stamped on a resource is its bookkeeping, not a change the files make.
 */
import { desiredFromManifest, planChanges, type Plan, type PlanRecorded } from '../model/plan.js';
import { DEFAULT_TENANT, REVISION_ANNOTATION, resourceKey, type AnyManifest } from '../model/resource.js';
import type { DesiredRecord } from './resources.js';
import type { Store } from './store.js';

/** The plan's view of a stored resource's desired state (status is not read). */
function recordedFromDesired(r: DesiredRecord): PlanRecorded {
  return {
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    labels: JSON.parse(r.labels) as Record<string, string>,
    annotations: JSON.parse(r.annotations) as Record<string, string>,
    spec: JSON.parse(r.spec) as object,
    uid: r.uid,
    deleting: r.deletionTimestamp !== null,
    source: r.source,
  };
}

/** What a tenant's recorded resources are, as a plan compares them. */
export function recordedForPlan(store: Store, tenant: string): PlanRecorded[] {
  return store.resources.listDesired({ tenant }).map(recordedFromDesired);
}

export function planForManifests(store: Store, manifests: readonly AnyManifest[], options: { prune: boolean; tenant?: string; source?: string }): Plan {
  const recorded = recordedForPlan(store, options.tenant ?? DEFAULT_TENANT);
  const stamped = new Map(recorded.flatMap((r) => (r.annotations[REVISION_ANNOTATION] === undefined ? [] : [[resourceKey(r), r.annotations[REVISION_ANNOTATION]] as const])));
  const desired = manifests.map(desiredFromManifest).map((d) => {
    const revision = stamped.get(resourceKey(d));
    return revision === undefined || d.annotations[REVISION_ANNOTATION] !== undefined ? d : { ...d, annotations: { ...d.annotations, [REVISION_ANNOTATION]: revision } };
  });
  return planChanges(desired, recorded, { prune: options.prune, ...(options.source !== undefined ? { scope: { source: options.source } } : {}) });
}
