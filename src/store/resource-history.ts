/**
 * @module What a Kubernetes-style client needs of the store beyond plain reads: pages of a
 * kind's resources in name order (list with limit/continue), and every change in a scope since
 * a revision — resources written after it and tombstones of those removed after it — for watches.
 */
import type { SqlConnection } from './connection.js';
import type { Kind } from '../model/kinds.js';
import type { AnyStoredResource } from '../model/resource.js';
import { RESOURCE_COLUMNS, RESOURCE_FROM, rowToResource, type ResourceRow } from './resource-rows.js';
import { StatementCache } from './sqlite.js';

/** A tenant's resources of one kind, in one namespace or (without it) all. */
export interface ResourceScope {
  tenant: string;
  kind: Kind;
  namespace?: string | undefined;
  name?: string | undefined;
}

export interface ScopeChanges {
  /** Created or changed after the revision, oldest change first, with the revision of each one's creation. */
  changed: Array<{ resource: AnyStoredResource; createdRevision: number }>;
  /** Removed after the revision: their last state, resourceVersion = the removal's revision. */
  removed: AnyStoredResource[];
}

function scopeWhere(prefix: string, scope: ResourceScope): string {
  const where = [`${prefix}.tenant = @tenant`, `${prefix}.kind = @kind`];
  if (scope.namespace !== undefined) where.push(`${prefix}.namespace = @namespace`);
  if (scope.name !== undefined) where.push(`${prefix}.name = @name`);
  return where.join(' AND ');
}

function params(scope: ResourceScope): Record<string, string> {
  return { tenant: scope.tenant, kind: scope.kind, ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}), ...(scope.name !== undefined ? { name: scope.name } : {}) };
}

export class ResourceHistory {
  private readonly sql: StatementCache;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  /** Up to `limit` resources after `after` (namespace, name), ordered by namespace then name. */
  pageByName(scope: ResourceScope, limit: number, after?: readonly [string, string]): { items: AnyStoredResource[]; more: boolean } {
    const rows = this.sql
      .get(
        `SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE ${scopeWhere('r', scope)}
         AND ((r.namespace, r.name) > (@afterNamespace, @afterName) OR @afterNamespace IS NULL)
         ORDER BY r.namespace, r.name LIMIT @fetch`,
      )
      .all({ ...params(scope), afterNamespace: after?.[0] ?? null, afterName: after?.[1] ?? null, fetch: limit + 1 }) as ResourceRow[];
    return { items: rows.slice(0, limit).map(rowToResource), more: rows.length > limit };
  }

  /** Everything that happened in `scope` after `revision`. */
  changesSince(scope: ResourceScope, revision: number): ScopeChanges {
    const changed = this.sql
      .get(`SELECT ${RESOURCE_COLUMNS}, r.created_revision FROM ${RESOURCE_FROM} WHERE ${scopeWhere('r', scope)} AND r.resource_version > @revision ORDER BY r.resource_version`)
      .all({ ...params(scope), revision }) as Array<ResourceRow & { created_revision: number }>;
    const removed = this.sql
      .get(`SELECT t.resource FROM resource_tombstones t WHERE ${scopeWhere('t', scope)} AND t.revision > @revision ORDER BY t.revision`)
      .all({ ...params(scope), revision }) as Array<{ resource: string }>;
    return { changed: changed.map((row) => ({ resource: rowToResource(row), createdRevision: row.created_revision })), removed: removed.map((r) => JSON.parse(r.resource) as AnyStoredResource) };
  }

  /** The newest revision whose tombstones were pruned: a watch from before it cannot be resumed. */
  prunedThrough(): number {
    return (this.sql.get(`SELECT value FROM meta WHERE key = 'tombstones_pruned_through'`).get() as { value: number }).value;
  }
}
