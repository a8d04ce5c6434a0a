/**
 * @module Desired state in SQLite: reading resources, applying manifests (one transaction per
 * apply; generation bumped on spec changes; ownership enforced), requesting deletion (refused
 * while something still uses the resource), writing status, and the change feed that lets a
 * reconciler in another process notice writes. Every write bumps the store-wide revision,
 * which becomes the resource's resourceVersion.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection, SqlStatement } from './connection.js';
import { jsonEqual } from '../model/canonical-json.js';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../model/errors.js';
import { KINDS, REFERENCE_FIELDS, type Kind } from '../model/kinds.js';
import { referencesOf } from '../model/references.js';
import { displayName, type AnyManifest, type AnyStoredResource, type ResourceStatus, type StoredResourceOf } from '../model/resource.js';
import { initialStatus, RESOURCE_COLUMNS, RESOURCE_FROM, rowToResource, statusToRow, type ResourceRow } from './resource-rows.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
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

/** A resource's change-feed entry: what the reconciler compares to decide whether to look again. */
export interface ResourceSignal {
  uid: string;
  kind: Kind;
  resourceVersion: number;
  generation: number;
  deleting: boolean;
  /** The annotations as stored (JSON), e.g. skip-final-backup or self-heal changed. */
  annotations: string;
  /** Bumped by `touch` when something was asked of the resource (a backup, a deploy, an action). */
  wakes: number;
}

/** A resource's desired state as stored: labels, annotations and spec are JSON text. */
export interface DesiredRecord {
  uid: string;
  kind: Kind;
  namespace: string;
  name: string;
  labels: string;
  annotations: string;
  spec: string;
  source: string;
  deletionTimestamp: string | null;
}

export type ApplyAction = 'created' | 'updated' | 'unchanged' | 'restored';

export interface ApplyOutcome {
  results: Array<{ uid: string; kind: Kind; namespace: string; name: string; action: ApplyAction; generation: number }>;
  revision: number;
}

/**
 * Decides whether a tenant may hold what a write leaves it with, inside the write's transaction:
 * `created` are the kinds the write adds a resource of, `countOf` counts the tenant's resources
 * of a kind (those being deleted left out) as the write leaves them. Throws to refuse, which
 * undoes the whole write. Installed by the store from the billing settings (src/billing/quota.ts).
 */
export type QuotaCheck = (tenant: string, created: readonly Kind[], countOf: (kind: Kind) => number) => void;

export class Resources {
  private quotaCheck: QuotaCheck | undefined;
  private readonly byUid: SqlStatement;
  private readonly byName: SqlStatement;

  private readonly sql: StatementCache;
  private removalsSincePrune = 0;

  constructor(private readonly db: SqlConnection, private readonly tombstonesKept: number = TOMBSTONES_KEPT) {
    this.sql = new StatementCache(db);
    this.byUid = db.prepare(`SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.uid = ?`);
    this.byName = db.prepare(
      `SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.tenant = ? AND r.kind = ? AND r.namespace = ? AND r.name = ?`,
    );
  }

  /** Every later write that adds a resource is checked with `check` (see QuotaCheck). */
  enforceQuotas(check: QuotaCheck | undefined): void {
    this.quotaCheck = check;
  }

  /** How many resources of `kind` the tenant has, not counting those being deleted. */
  countLive(tenant: string, kind: Kind): number {
    return (this.sql.get(`SELECT COUNT(*) AS n FROM resources WHERE tenant = ? AND kind = ? AND deletion_timestamp IS NULL`).get(tenant, kind) as { n: number }).n;
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

  /**
   * The desired state of a tenant's resources (of one source, when named), without status, its
   * labels, annotations and spec as the JSON text stored: what a plan or a sync compares, read
   * without the status join or parsing anything per row. Ordered like `list`.
   */
  listDesired(filter: { tenant: string; source?: string }): DesiredRecord[] {
    const where = filter.source === undefined ? 'tenant = @tenant' : 'tenant = @tenant AND source = @source';
    return this.sql
      .get(
        `SELECT uid, kind, namespace, name, labels, annotations, spec, source, deletion_timestamp AS "deletionTimestamp"
         FROM resources WHERE ${where} ORDER BY kind, namespace, name`,
      )
      .all(filter) as DesiredRecord[];
  }

  /** A page of a tenant's resources of one kind, oldest first (keyset on creation time and uid). */
  page(filter: { tenant: string; kind: Kind }, request: PageRequest): Page<AnyStoredResource> {
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 2);
    const rows = this.sql
      .get(
        `SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.tenant = @tenant AND r.kind = @kind
         AND ((r.created_at, r.uid) > (@afterCreated, @afterUid) OR @afterCreated IS NULL)
         ORDER BY r.created_at, r.uid LIMIT @fetch`,
      )
      .all({ ...filter, afterCreated: after?.[0] ?? null, afterUid: after?.[1] ?? null, fetch: request.limit + 1 }) as ResourceRow[];
    return toPage(rows.map(rowToResource), request.limit, (r) => [r.createdAt, r.uid]);
  }

  /**
   * Creates one resource owned by `source`; a resource of that kind and name that already
   * exists (even one being deleted) is a conflict.
   */
  create(tenant: string, source: string, manifest: AnyManifest): AnyStoredResource {
    return this.db
      .transaction((): AnyStoredResource => {
        const existing = this.find(tenant, refOf(manifest));
        if (existing) {
          const state = existing.deletionTimestamp === null ? 'already exists' : 'still exists while it is being deleted';
          throw new ConflictError(`${displayName(existing)} ${state}; names are unique per tenant and kind`, [
            { pointer: '/name', message: `${existing.name} is taken` },
          ]);
        }
        const { results } = this.apply(tenant, source, [manifest]);
        return this.getOrThrow(results[0]?.uid ?? '');
      })
      .immediate();
  }

  /**
   * Read-modify-write of one resource: `change` gets the current resource and returns its new
   * manifest. `expectedVersion` (from If-Match) must be the current specVersion (412 if not);
   * another source's resource is a conflict naming the owner.
   */
  modify(uid: string, source: string, change: (current: AnyStoredResource) => AnyManifest, expectedVersion?: number): AnyStoredResource {
    return this.db
      .transaction((): AnyStoredResource => {
        const current = this.getOrThrow(uid);
        checkVersion(current, expectedVersion);
        if (current.deletionTimestamp !== null) throw new ConflictError(`${displayName(current)} is being deleted; it can no longer be changed`);
        this.apply(current.tenant, source, [change(current)]);
        return this.getOrThrow(uid);
      })
      .immediate();
  }

  /** Requests deletion of one resource by uid, with If-Match's version when given. */
  requestDeletionOf(uid: string, source: string, expectedVersion?: number): AnyStoredResource {
    return this.db
      .transaction((): AnyStoredResource => {
        const current = this.getOrThrow(uid);
        checkVersion(current, expectedVersion);
        this.requestDeletion(current.tenant, source, [current]);
        return this.getOrThrow(uid);
      })
      .immediate();
  }

  private getOrThrow(uid: string): AnyStoredResource {
    const found = this.get(uid);
    if (!found) throw new NotFoundError(`no resource has id ${uid}`);
    return found;
  }

  /** Every resource of every tenant whose resourceVersion is above `revision`. */
  changedSince(revision: number): AnyStoredResource[] {
    const rows = this.sql
      .get(`SELECT ${RESOURCE_COLUMNS} FROM ${RESOURCE_FROM} WHERE r.resource_version > ? ORDER BY r.resource_version`)
      .all(revision) as ResourceRow[];
    return rows.map(rowToResource);
  }

  /** Resources removed after `revision` (from their tombstones; see ResourceHistory.prunedThrough for how far back they reach). */
  removedSince(revision: number): Array<{ uid: string; revision: number }> {
    return this.sql.get(`SELECT uid, revision FROM resource_tombstones WHERE revision > ? ORDER BY revision`).all(revision) as Array<{ uid: string; revision: number }>;
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
        const created = [...new Set(results.filter((r) => r.action === 'created' || r.action === 'restored').map((r) => r.kind))];
        if (created.length > 0 && this.quotaCheck) this.quotaCheck(tenant, created, (kind) => this.countLive(tenant, kind));
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
          `INSERT INTO resources (uid, tenant, kind, namespace, name, labels, annotations, spec, generation, resource_version, spec_version, created_revision, source, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
        )
        .run(uid, tenant, ref.kind, ref.namespace, ref.name, JSON.stringify(labels), JSON.stringify(annotations), JSON.stringify(m.spec), revision, revision, revision, source, now, now);
      this.upsertStatus(uid, initialStatus(ref.kind), 1, now);
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
        `UPDATE resources SET labels = ?, annotations = ?, spec = ?, generation = ?, resource_version = ?, spec_version = ?, updated_at = ?, deletion_timestamp = NULL
         WHERE uid = ?`,
      )
      .run(JSON.stringify(labels), JSON.stringify(annotations), JSON.stringify(m.spec), generation, revision, revision, now, existing.uid);
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
          `UPDATE resources SET deletion_timestamp = COALESCE(deletion_timestamp, ?), resource_version = ?, spec_version = ?, updated_at = ? WHERE uid = ?`,
        );
        for (const target of targets) mark.run(now, revision, revision, now, target.uid);
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

  /**
   * The one way status is written: a compare-and-swap on the status version. Writes `status` and
   * returns true only when the resource's status is still at `expectedVersion` (its
   * `statusVersion` as the writer read it); returns false, changing nothing, when another writer
   * came first or the resource is gone. The caller then reads again and re-applies its change
   * (the reconciler requeues, as controller-runtime does on a 409).
   */
  writeStatus(uid: string, expectedVersion: number, status: ResourceStatus): boolean {
    return this.db
      .transaction((): boolean => {
        const current = this.sql
          .get(`SELECT COALESCE(s.status_version, 0) AS version FROM resources r LEFT JOIN resource_status s ON s.uid = r.uid WHERE r.uid = ?`)
          .get(uid) as { version: number } | undefined;
        if (current === undefined || current.version !== expectedVersion) return false;
        this.sql.get(`UPDATE resources SET resource_version = ? WHERE uid = ?`).run(this.nextRevision(), uid);
        this.upsertStatus(uid, status, expectedVersion + 1, nowIso());
        // A pending create is done once the vendor's id is recorded, and not a moment before: a
        // crash in between must still find the resource by its key.
        if (status.externalId) this.sql.get(`DELETE FROM pending_operations WHERE uid = ? AND operation = 'create'`).run(uid);
        return true;
      })
      .immediate();
  }

  private upsertStatus(uid: string, status: ResourceStatus, version: number, now: string): void {
    this.sql
      .get(
        `INSERT INTO resource_status (uid, phase, conditions, observed_generation, external_id, endpoints, applied_spec, incarnation, details, updated_at, status_version)
         VALUES (@uid, @phase, @conditions, @observed_generation, @external_id, @endpoints, @applied_spec, @incarnation, @details, @updated_at, @status_version)
         ON CONFLICT (uid) DO UPDATE SET phase = excluded.phase, conditions = excluded.conditions,
           observed_generation = excluded.observed_generation, external_id = excluded.external_id,
           endpoints = excluded.endpoints, applied_spec = excluded.applied_spec, incarnation = excluded.incarnation,
           details = excluded.details, updated_at = excluded.updated_at, status_version = excluded.status_version`,
      )
      .run({ ...statusToRow(uid, status, now), status_version: version });
  }

  /**
   * Wakes the resource's reconciler without changing the resource (a backup, restore or deploy
   * was asked for): bumps its wake counter, which the change feed follows, and its
   * resourceVersion. Returns false when it does not exist (in the scope's tenant and of its
   * kind, when given). Runs inside the caller's transaction when there is one, so a record and
   * its wake land together.
   */
  touch(uid: string, scope: { tenant?: string; kind?: Kind } = {}): boolean {
    const revision = this.nextRevision();
    const tenant = scope.tenant ?? null;
    const kind = scope.kind ?? null;
    return (
      this.sql
        .get(`UPDATE resources SET resource_version = ?, wakes = wakes + 1 WHERE uid = ? AND (? IS NULL OR tenant = ?) AND (? IS NULL OR kind = ?)`)
        .run(revision, uid, tenant, tenant, kind, kind).changes === 1
    );
  }

  /**
   * Sets (or, with null, removes) one annotation without changing the spec, e.g.
   * `cairn.dev/skip-final-backup` for `DELETE ?skip_final_backup=true`; the reconciler notices.
   * Returns false when the resource does not exist.
   */
  annotate(uid: string, key: string, value: string | null): boolean {
    return this.db
      .transaction((): boolean => {
        const current = this.get(uid);
        if (!current) return false;
        const annotations = { ...current.annotations };
        if (value === null) delete annotations[key];
        else annotations[key] = value;
        if (jsonEqual(annotations, current.annotations)) return true;
        const revision = this.nextRevision();
        this.sql
          .get(`UPDATE resources SET annotations = ?, resource_version = ?, spec_version = ?, updated_at = ? WHERE uid = ?`)
          .run(JSON.stringify(annotations), revision, revision, nowIso(), uid);
        return true;
      })
      .immediate();
  }

  /**
   * What the reconciler's change feed needs of every resource written after `revision`: what
   * makes it worth a reconcile (generation, deletion, annotations, wakes), without the rest.
   */
  signalsSince(revision: number): ResourceSignal[] {
    const rows = this.sql
      .get(
        `SELECT uid, kind, resource_version, generation, deletion_timestamp, annotations, wakes FROM resources
         WHERE resource_version > ? ORDER BY resource_version`,
      )
      .all(revision) as Array<{ uid: string; kind: string; resource_version: number; generation: number; deletion_timestamp: string | null; annotations: string; wakes: number }>;
    return rows.map((row) => ({
      uid: row.uid,
      kind: row.kind as Kind,
      resourceVersion: row.resource_version,
      generation: row.generation,
      deleting: row.deletion_timestamp !== null,
      annotations: row.annotations,
      wakes: row.wakes,
    }));
  }

  /** Hands every resource owned by `from` to `to` (resources a deleted source leaves in place). Returns how many. */
  reassignOwner(from: string, to: string): number {
    return this.db
      .transaction((): number => {
        const revision = this.nextRevision();
        return this.sql
          .get(`UPDATE resources SET source = ?, resource_version = ?, spec_version = ?, updated_at = ? WHERE source = ?`)
          .run(to, revision, revision, nowIso(), from).changes;
      })
      .immediate();
  }

  /**
   * Drops the oldest tombstones beyond the number kept, remembering the newest revision dropped.
   * Finding the cutoff walks `tombstonesKept` index entries, so it runs once per tenth of that
   * many removals by this process rather than on every one (the table may hold that many more).
   */
  private pruneTombstones(): void {
    this.removalsSincePrune += 1;
    if (this.removalsSincePrune < Math.max(1, Math.floor(this.tombstonesKept / 10))) return;
    this.removalsSincePrune = 0;
    const cutoff = this.sql
      .get(`SELECT revision FROM resource_tombstones ORDER BY revision DESC LIMIT 1 OFFSET ?`)
      .get(this.tombstonesKept) as { revision: number } | undefined;
    if (!cutoff) return;
    this.sql.get(`DELETE FROM resource_tombstones WHERE revision <= ?`).run(cutoff.revision);
    this.sql.get(`UPDATE meta SET value = MAX(value, ?) WHERE key = 'tombstones_pruned_through'`).run(cutoff.revision);
  }

  /**
   * Runs `work` (writes included) and undoes all of it: what a write would do, or why it would
   * be refused, without doing it (Kubernetes' dryRun=All).
   */
  rehearse<T>(work: () => T): T {
    let result: T | undefined;
    try {
      this.db
        .transaction(() => {
          result = work();
          throw ROLLED_BACK;
        })
        .immediate();
    } catch (error) {
      if (error !== ROLLED_BACK) throw error;
    }
    return result as T;
  }

  /**
   * Kubernetes' optimistic concurrency: like `modify`, but `resourceVersion` (when given) must be
   * the resource's current resourceVersion, status writes included; a stale one is a conflict.
   */
  modifyAtResourceVersion(uid: string, source: string, change: (current: AnyStoredResource) => AnyManifest, resourceVersion?: number): AnyStoredResource {
    return this.db
      .transaction((): AnyStoredResource => {
        const current = this.getOrThrow(uid);
        if (resourceVersion !== undefined && resourceVersion !== current.resourceVersion) {
          throw new ConflictError(
            `Operation cannot be fulfilled on ${displayName(current)}: the object has been modified (it is at resourceVersion ${current.resourceVersion}, not ${resourceVersion}); please apply your changes to the latest version and try again`,
          );
        }
        return this.modify(uid, source, change);
      })
      .immediate();
  }

  /**
   * Removes a resource whose deletion is done, only if its deletion is still asked for at
   * `generation` (the one the reconciler deleted): a resource declared again meanwhile (apply
   * clears its deletion and bumps its generation) is kept, to be made again. True when removed.
   */
  removeDeleted(uid: string, generation: number): boolean {
    return this.db
      .transaction((): boolean => {
        const current = this.get(uid);
        if (!current || current.deletionTimestamp === null || current.generation !== generation) return false;
        this.remove(uid);
        return true;
      })
      .immediate();
  }

  /**
   * Removes a resource for good, once the vendor's side is gone (or orphaned), leaving a
   * tombstone (its last state at the removal's revision) for watches that resume.
   */
  remove(uid: string): void {
    this.db
      .transaction(() => {
        const current = this.get(uid);
        const revision = this.nextRevision();
        if (current) {
          this.sql
            .get(`INSERT INTO resource_tombstones (revision, uid, tenant, kind, namespace, name, resource) VALUES (?, ?, ?, ?, ?, ?, ?)`)
            .run(revision, uid, current.tenant, current.kind, current.namespace, current.name, JSON.stringify({ ...current, resourceVersion: revision }));
          this.pruneTombstones();
        }
        this.sql.get(`DELETE FROM pending_operations WHERE uid = ?`).run(uid);
        this.sql.get(`DELETE FROM resources WHERE uid = ?`).run(uid);
      })
      .immediate();
  }
}

/** Thrown to undo a rehearsal's transaction. */
const ROLLED_BACK = Symbol('rolled back');

/** How many tombstones are kept (pruned in batches of a tenth); a watch resuming from before the oldest one gets 410 Gone. */
export const TOMBSTONES_KEPT = 10_000;

/** The spec fields of every kind that can name a resource of `target`. */
function referringFields(target: Kind): Array<{ kind: Kind; field: string; array: boolean }> {
  return KINDS.flatMap((kind) =>
    REFERENCE_FIELDS[kind].filter((f) => f.target === target).map((f) => ({ kind, field: f.field, array: f.many })),
  );
}

function checkVersion(current: AnyStoredResource, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && expectedVersion !== current.specVersion) {
    throw new PreconditionFailedError(
      `${displayName(current)} has changed since version ${expectedVersion} (it is at ${current.specVersion}); read it again and retry`,
    );
  }
}

function refOf(m: AnyManifest): ResourceRef {
  return { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name };
}
