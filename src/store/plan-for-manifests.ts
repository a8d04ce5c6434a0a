/**
 * @module The plan of a set of manifests against the store: desired = the manifests, recorded =
 * what the data dir holds for the tenant (the default one unless named). Without prune, only the resources the
 * manifests name are considered (like `kubectl apply`); with it, the rest are deletions.
 */
import { desiredFromManifest, planChanges, recordedFromStored, type Plan } from '../model/plan.js';
import { DEFAULT_TENANT, type AnyManifest } from '../model/resource.js';
import type { Store } from './store.js';

export function planForManifests(store: Store, manifests: readonly AnyManifest[], options: { prune: boolean; tenant?: string }): Plan {
  const desired = manifests.map(desiredFromManifest);
  const recorded = store.resources.list({ tenant: options.tenant ?? DEFAULT_TENANT }).map(recordedFromStored);
  return planChanges(desired, recorded, { prune: options.prune });
}
