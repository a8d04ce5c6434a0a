/**
 * @module A status change made by something other than the reconcile loop (the provider test
 * route): read the resource, compute its new status from what was read, and write it through
 * the compare-and-swap of `Resources.writeStatus`, reading again and re-applying the change
 * when another writer came first.
 */
import type { AnyStoredResource, ResourceStatus } from '../model/resource.js';

/** What of Resources a status change needs. */
export interface StatusWriter {
  get(uid: string): AnyStoredResource | undefined;
  writeStatus(uid: string, expectedVersion: number, status: ResourceStatus): boolean;
}

/** How many fresh reads a change is re-applied on before giving up (each conflict is another writer's success). */
const ATTEMPTS = 8;

/**
 * Applies `change` to the resource's status as it is now. Returns false when the resource is
 * gone; throws when other writers won every one of the attempts (nothing is written then).
 */
export function writeStatusChange(resources: StatusWriter, uid: string, change: (current: AnyStoredResource) => ResourceStatus): boolean {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = resources.get(uid);
    if (!current) return false;
    if (resources.writeStatus(uid, current.statusVersion, change(current))) return true;
  }
  throw new Error(`the status of ${uid} changed under each of ${ATTEMPTS} attempts to write it; try again`);
}
