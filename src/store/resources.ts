/**
 * @module Desired state in SQLite: reading resources, applying manifests (one transaction per
 * apply; generation bumped on spec changes; ownership enforced), requesting deletion (refused
 * while something still uses the resource), writing status, and the change feed that lets a
 * reconciler in another process notice writes. Every write bumps the store-wide revision,
 * which becomes the resource's resourceVersion.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { jsonEqual } from '../model/canonical-json.js';
import { ConflictError, NotFoundError } from '../model/errors.js';
import { KINDS, REFERENCE_FIELDS, type Kind } from '../model/kinds.js';
import { referencesOf } from '../model/references.js';
import { displayName, type AnyManifest, type AnyStoredResource, type ResourceStatus, type StoredResourceOf } from '../model/resource.js';
import { initialStatus, RESOURCE_COLUMNS, RESOURCE_FROM, rowToResource, statusToRow, type ResourceRow } from './resource-rows.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface ResourceFilter {
  tenant: string;
  kind?: Kind;
  namespace?: string;
  name?: string;
  source?: string;
}

export interface ResourceRef {
  kind: Kind;
  namespace: string;
  name: string;
}

export type ApplyAction = 'created' | 'updated' | 'unchanged' | 'restored';

export interface ApplyOutcome {
  results: Array<{ uid: string; kind: Kind; namespace: string; name: string; action: ApplyAction; generation: number }>;
  revision: number;
}

export class Resources {
  private readonly byUid: Database.Statement;
  private readonly byName: Database.Statement;

  private readonly sql: StatementCache;

  constructor(private readonly db: Database.Database) {
    this.sql = new StatementCache(db);
    this.byUid = db.prepare(`SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.uid = ?`);
    this.byName = db.prepare(
      `SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.tenant = ? AND r.kind = ? AND r.namespace = ? AND r.name = ?`,
    );
  }

  revision(): number {
    return (this.sql.get(`SELECT value FROM meta WHERE key = 'revision'`).get() as { value: number }).value;
  }

  private nextRevision(): number {
    return (this.sql.get(`UPDATE meta SET value = value + 1 WHERE key = 'revision' RETURNING value`).get() as { value: number }).value;
  }

  get(uid: string): AnyStoredResource | undefined {
    const row = this.byUid.get(uid) as ResourceRow | undefined;
    return row && rowToResource(row);
  }

  find<K extends Kind>(tenant: string, ref: { kind: K; namespace: string; name: string }): StoredResourceOf<K> | undefined {
    const row = this.byName.get(tenant, ref.kind, ref.namespace, ref.name) as ResourceRow | undefined;
    return row && (rowToResource(row) as StoredResourceOf<K>);
  }

  /** In creation order of kinds' names is not guaranteed; callers sort as they need. */
  list(filter: ResourceFilter): AnyStoredResource[] {
    const where = ['r.tenant = @tenant'];
    if (filter.kind) where.push('r.kind = @kind');
    if (filter.namespace) where.push('r.namespace = @namespace');
    if (filter.name) where.push('r.name = @name');
    if (filter.source) where.push('r.source = @source');
    const rows = this.sql
      .get(`SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE ${where.join(' AND ')} ORDER BY r.kind, r.namespace, r.name`)
      .all(filter) as ResourceRow[];
    return rows.map(rowToResource);
  }

  /** Every resource of every tenant whose resourceVersion is above `revision`. */
  changedSince(revision: number): AnyStoredResource[] {
    const rows = this.sql
      .get(`SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.resource_version > ? ORDER BY r.resource_version`)
      .all(revision) as ResourceRow[];
    return rows.map(rowToResource);
  }

  /**
   * Writes manifests as desired state owned by `source`, all or nothing. A resource owned by
   * another source is a conflict naming the owner. Re-applying a resource whose deletion was
   * requested cancels the deletion.
   */
  apply(tenant: string, source: string, manifests: readonly AnyManifest[]): ApplyOutcome {
    return this.db
      .transaction((): ApplyOutcome => {
        const conflicts = manifests.flatMap((m, index) => {
          const existing = this.find(tenant, refOf(m));
          return existing && existing.source !== source
            ? [{ pointer: `/${index}`, message: `${displayName(existing)} is owned by ${existing.source}; change it there (this change came from ${source})` }]
            : [];
        });
        if (conflicts.length > 0) {
          throw new ConflictError(conflicts.map((c) => c.message).join('; '), conflicts);
        }
        const revision = this.nextRevision();
        const results = manifests.map((m) => this.applyOne(tenant, source, m, revision));
        return { results, revision };
      })
      .immediate();
  }

  private applyOne(tenant: string, source: string, m: AnyManifest, revision: number): ApplyOutcome['results'][number] {
    const ref = refOf(m);
    const now = nowIso();
    const labels = m.metadata.labels ?? {};
    const annotations = m.metadata.annotations ?? {};
    const existing = this.find(tenant, ref);
    if (!existing) {
      const uid = randomUUID();
      this.sql
        .get(
          `INSERT INTO resources (uid, tenant, kind, namespace, name, labels, annotations, spec, generation, resource_version, source, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
        )
        .run(uid, tenant, ref.kind, ref.namespace, ref.name, JSON.stringify(labels), JSON.stringify(annotations), JSON.stringify(m.spec), revision, source, now, now);
      this.upsertStatus(uid, initialStatus(ref.kind), now);
      return { uid, ...ref, action: 'created', generation: 1 };
    }
    const specChanged = !jsonEqual(existing.spec, m.spec);
    const metaChanged = !jsonEqual(existing.labels, labels) || !jsonEqual(existing.annotations, annotations);
    const restoring = existing.deletionTimestamp !== null;
    if (!specChanged && !metaChanged && !restoring) {
      return { uid: existing.uid, ...ref, action: 'unchanged', generation: existing.generation };
    }
    const generation = specChanged || restoring ? existing.generation + 1 : existing.generation;
    this.sql
      .get(
        `UPDATE resources SET labels = ?, annotations = ?, spec = ?, generation = ?, resource_version = ?, updated_at = ?, deletion_timestamp = NULL
         WHERE uid = ?`,
      )
      .run(JSON.stringify(labels), JSON.stringify(annotations), JSON.stringify(m.spec), generation, revision, now, existing.uid);
    return { uid: existing.uid, ...ref, action: restoring ? 'restored' : 'updated', generation };
  }

  /**
   * Marks resources for deletion, all or nothing. Refused (409) when a resource outside the set
   * still uses one of them, or when another source owns one. Unknown names are not-found errors.
   */
  requestDeletion(tenant: string, source: string | null, refs: readonly ResourceRef[]): { uids: string[]; revision: number } {
    return this.db
      .transaction(() => {
        const targets = refs.map((ref) => {
          const found = this.find(tenant, ref);
          if (!found) throw new NotFoundError(`${displayName(ref)} does not exist`);
          if (source !== null && found.source !== source) {
            throw new ConflictError(`${displayName(found)} is owned by ${found.source}; delete it there (this request came from ${source})`);
          }
          return found;
        });
        const inSet = new Set(targets.map((t) => t.uid));
        const problems: string[] = [];
        for (const target of targets) {
          const users = this.usersOf(target).filter((u) => !inSet.has(u.uid) && u.deletionTimestamp === null);
          if (users.length > 0) {
            problems.push(`${displayName(target)} is still used by ${users.map(displayName).join(', ')}; delete or move those first`);
          }
        }
        if (problems.length > 0) throw new ConflictError(problems.join('; '));
        const revision = this.nextRevision();
        const now = nowIso();
        const mark = this.sql.get(
          `UPDATE resources SET deletion_timestamp = COALESCE(deletion_timestamp, ?), resource_version = ?, updated_at = ? WHERE uid = ?`,
        );
        for (const target of targets) mark.run(now, revision, now, target.uid);
        return { uids: targets.map((t) => t.uid), revision };
      })
      .immediate();
  }

  /** Resources of the same tenant and namespace whose spec references `target` (deleting ones included). */
  usersOf(target: { tenant: string; kind: Kind; namespace: string; name: string }): AnyStoredResource[] {
    const candidates = referringFields(target.kind);
    if (candidates.length === 0) return [];
    // SQLite narrows to the rows whose reference fields hold the name; referencesOf confirms.
    const match = candidates
      .map((c, i) =>
        c.array
          ? `(r.kind = @kind${i} AND EXISTS (SELECT 1 FROM json_each(r.spec, '$.${c.field}') WHERE value = @name))`
          : `(r.kind = @kind${i} AND json_extract(r.spec, '$.${c.field}') = @name)`,
      )
      .join(' OR ');
    const params: Record<string, string> = { tenant: target.tenant, namespace: target.namespace, name: target.name };
    candidates.forEach((c, i) => (params[`kind${i}`] = c.kind));
    const rows = this.sql
      .get(`SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.tenant = @tenant AND r.namespace = @namespace AND (${match}) ORDER BY r.kind, r.name`)
      .all(params) as ResourceRow[];
    return rows
      .map(rowToResource)
      .filter((r) => referencesOf(r.kind, r.spec).some((ref) => ref.target === target.kind && ref.name === target.name));
  }

  writeStatus(uid: string, status: ResourceStatus): void {
    this.db
      .transaction(() => {
        const revision = this.nextRevision();
        const now = nowIso();
        const changed = this.sql.get(`UPDATE resources SET resource_version = ? WHERE uid = ?`).run(revision, uid);
        if (changed.changes === 0) return;
        this.upsertStatus(uid, status, now);
      })
      .immediate();
  }

  private upsertStatus(uid: string, status: ResourceStatus, now: string): void {
    this.sql
      .get(
        `INSERT INTO resource_status (uid, phase, conditions, observed_generation, external_id, endpoints, applied_spec, incarnation, details, updated_at)
         VALUES (@uid, @phase, @conditions, @observed_generation, @external_id, @endpoints, @applied_spec, @incarnation, @details, @updated_at)
         ON CONFLICT (uid) DO UPDATE SET phase = excluded.phase, conditions = excluded.conditions,
           observed_generation = excluded.observed_generation, external_id = excluded.external_id,
           endpoints = excluded.endpoints, applied_spec = excluded.applied_spec, incarnation = excluded.incarnation,
           details = excluded.details, updated_at = excluded.updated_at`,
      )
      .run(statusToRow(uid, status, now));
  }

  /** Removes a resource for good, once the vendor's side is gone (or orphaned). */
  remove(uid: string): void {
    this.db
      .transaction(() => {
        this.nextRevision();
        this.sql.get(`DELETE FROM pending_operations WHERE uid = ?`).run(uid);
        this.sql.get(`DELETE FROM resources WHERE uid = ?`).run(uid);
      })
      .immediate();
  }
}

/** The spec fields of every kind that can name a resource of `target`. */
function referringFields(target: Kind): Array<{ kind: Kind; field: string; array: boolean }> {
  return KINDS.flatMap((kind) =>
    REFERENCE_FIELDS[kind].filter((f) => f.target === target).map((f) => ({ kind, field: f.field, array: f.many })),
  );
}

function refOf(m: AnyManifest): ResourceRef {
  return { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name };
}
