/**
 * @module Removing a git source, in one transaction: with prune on, the resources it set are
 * deleted (each by its deletionPolicy, through the reconciler); what stays — everything when
 * prune is off — is handed to the API so that someone can still change it. A prune something
 * else depends on is refused (409) and nothing changes.
 */
import { gitOwner, type GitSource } from '../store/sources.js';
import type { Store } from '../store/store.js';

export function removeSource(store: Store, source: GitSource): { deleted: number; kept: number } {
  return store.transaction(() => {
    const owner = gitOwner(source.id);
    const owned = store.resources.list({ tenant: source.tenant, source: owner }).filter((r) => r.deletionTimestamp === null);
    if (source.prune && owned.length > 0) store.resources.requestDeletion(source.tenant, owner, owned);
    store.resources.reassignOwner(owner, 'api');
    store.sources.remove(source.id);
    return { deleted: source.prune ? owned.length : 0, kept: source.prune ? 0 : owned.length };
  });
}
