/**
 * @module What `GET /watch` can watch and how each kind's objects are rendered: the REST record
 * of the object, exactly as its own route answers it, so the dashboard keeps one shape per kind.
 */
import type { Kind } from '../model/kinds.js';
import type { AnyStoredResource, StoredResource } from '../model/resource.js';
import type { Store } from '../store/store.js';
import { appRecord } from './records/app-record.js';
import { databaseRecord } from './records/database-record.js';
import { ResourceLookup } from './records/lookup.js';
import { providerRecord } from './records/provider-record.js';
import { serverRecord } from './records/server-record.js';
import { sourceRecord } from './records/source-record.js';

/** The collections `?kinds=` names, as in the REST paths. */
export const WATCH_KINDS = ['providers', 'servers', 'databases', 'apps', 'sources'] as const;
export type WatchKind = (typeof WATCH_KINDS)[number];

/** The resource kind behind each collection that is stored as a resource (git sources are not). */
export const RESOURCE_KIND: Record<Exclude<WatchKind, 'sources'>, Kind> = {
  providers: 'Provider', servers: 'Server', databases: 'Database', apps: 'App',
};

/** The REST record of a stored resource of `kind`, for `tenant`. */
export function resourceWatchRecord(store: Store, tenant: string, kind: Exclude<WatchKind, 'sources'>, r: AnyStoredResource): unknown {
  const lookup = new ResourceLookup(store, tenant);
  switch (kind) {
    case 'providers': return providerRecord(r as StoredResource<'Provider'>, store.secrets);
    case 'servers': return serverRecord(r as StoredResource<'Server'>, lookup);
    case 'databases': return databaseRecord(r as StoredResource<'Database'>, lookup);
    case 'apps': return appRecord(r as StoredResource<'App'>, lookup, store.deployments.current(r.uid)?.id ?? null);
  }
}

/** Every git source of the tenant as its REST record, by id. */
export function sourceWatchRecords(store: Store, tenant: string): Map<string, unknown> {
  const records = new Map<string, unknown>();
  let cursor: string | undefined;
  for (;;) {
    const page = store.sources.page(tenant, { limit: 200, ...(cursor !== undefined ? { cursor } : {}) });
    for (const source of page.items) records.set(source.id, sourceRecord(source, store));
    if (page.nextCursor === null) return records;
    cursor = page.nextCursor;
  }
}
