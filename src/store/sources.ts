/**
 * @module Git sources in SQLite: their settings, what their last sync found (the commit in force,
 * a rejected revision's errors, orphans, conflicts) and the sync-request counter that webhooks
 * and `cairn sources sync` bump for the sync loop to follow. Credentials and the webhook secret
 * live encrypted in the secrets table, under the source's id.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { ConflictError, NotFoundError } from '../model/errors.js';
import type { Condition } from '../model/resource.js';
import type { EncryptedSecrets } from './secrets.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import { nowIso, StatementCache } from './sqlite.js';

export type SourceAuthType = 'token' | 'basic';

/** Credentials for fetching a repository over HTTP(S). */
export type SourceCredentials = { type: 'token'; token: string } | { type: 'basic'; username: string; password: string };

/** A resource named by two owners: `claimant` declared it, `owner` has it. */
export interface SourceConflict {
  kind: string;
  namespace: string;
  name: string;
  owner: string;
  claimant: string;
}

export interface GitSource {
  id: string;
  tenant: string;
  name: string;
  url: string;
  ref: string;
  path: string;
  intervalSeconds: number;
  prune: boolean;
  suspended: boolean;
  auth: { type: SourceAuthType; username: string | null } | null;
  /** The commit whose manifests are in force. */
  revision: string | null;
  /** The last commit looked at (the same as `revision` unless it was rejected). */
  attemptedRevision: string | null;
  lastAttemptAt: string | null;
  lastSyncedAt: string | null;
  conditions: Condition[];
  /** Every error of the last rejected revision or fetch, one line each (`file:line:col ...: why`). */
  errors: string[];
  /** Resources this source set whose manifests are gone while prune is off. */
  orphans: string[];
  /** Resources this source declares that another owns, and resources of this source another declares. */
  conflicts: SourceConflict[];
  syncRequests: number;
  createdAt: string;
  updatedAt: string;
}

export interface NewGitSource {
  name: string;
  url: string;
  ref: string;
  path: string;
  intervalSeconds: number;
  prune: boolean;
  suspended?: boolean;
  credentials?: SourceCredentials;
}

export type GitSourceChanges = Partial<Pick<GitSource, 'ref' | 'path' | 'intervalSeconds' | 'prune' | 'suspended'>>;

/** What one sync attempt found, as written back onto the source. */
export interface SyncRecord {
  attemptedRevision: string | null;
  /** Set when the revision was applied (or was already in force). */
  revision?: string;
  conditions: Condition[];
  errors: string[];
  orphans: string[];
  conflicts: SourceConflict[];
}

interface SourceRow {
  id: string;
  tenant: string;
  name: string;
  url: string;
  ref: string;
  path: string;
  interval_seconds: number;
  prune: number;
  suspended: number;
  auth_type: SourceAuthType | null;
  auth_username: string | null;
  revision: string | null;
  attempted_revision: string | null;
  last_attempt_at: string | null;
  last_synced_at: string | null;
  conditions: string;
  errors: string;
  orphans: string;
  conflicts: string;
  sync_requests: number;
  created_at: string;
  updated_at: string;
}

/** The owner string of resources a git source sets. */
export function gitOwner(sourceId: string): string {
  return `git:${sourceId}`;
}

function fromRow(row: SourceRow): GitSource {
  return {
    id: row.id,
    tenant: row.tenant,
    name: row.name,
    url: row.url,
    ref: row.ref,
    path: row.path,
    intervalSeconds: row.interval_seconds,
    prune: row.prune === 1,
    suspended: row.suspended === 1,
    auth: row.auth_type === null ? null : { type: row.auth_type, username: row.auth_username },
    revision: row.revision,
    attemptedRevision: row.attempted_revision,
    lastAttemptAt: row.last_attempt_at,
    lastSyncedAt: row.last_synced_at,
    conditions: JSON.parse(row.conditions) as Condition[],
    errors: JSON.parse(row.errors) as string[],
    orphans: JSON.parse(row.orphans) as string[],
    conflicts: JSON.parse(row.conflicts) as SourceConflict[],
    syncRequests: row.sync_requests,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class GitSources {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection, private readonly secrets: EncryptedSecrets) {
    this.sql = new StatementCache(db);
  }

  /** Creates a source with its webhook secret (and credentials), sealed in the same transaction. */
  create(tenant: string, source: NewGitSource, webhookSecret: string): GitSource {
    return this.db
      .transaction((): GitSource => {
        if (this.findByName(tenant, source.name)) {
          throw new ConflictError(`a source named ${source.name} already exists; names are unique per tenant`, [{ pointer: '/name', message: `${source.name} is taken` }]);
        }
        const id = randomUUID();
        const now = nowIso();
        const auth = source.credentials;
        this.sql
          .get(
            `INSERT INTO sources (id, tenant, name, url, ref, path, interval_seconds, prune, suspended, auth_type, auth_username, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(id, tenant, source.name, source.url, source.ref, source.path, source.intervalSeconds, source.prune ? 1 : 0, source.suspended ? 1 : 0,
            auth?.type ?? null, auth?.type === 'basic' ? auth.username : null, now, now);
        this.secrets.put(tenant, 'source-webhook', id, webhookSecret);
        if (auth) this.secrets.put(tenant, 'source-credentials', id, JSON.stringify(auth));
        return this.require(id);
      })
      .immediate();
  }

  get(id: string): GitSource | undefined {
    const row = this.sql.get(`SELECT * FROM sources WHERE id = ?`).get(id) as SourceRow | undefined;
    return row && fromRow(row);
  }

  /** The tenant's source with this id; another tenant's is not found, never forbidden. */
  getInTenant(tenant: string, id: string): GitSource {
    const found = this.get(id);
    if (!found || found.tenant !== tenant) throw new NotFoundError(`no source has id ${id}`);
    return found;
  }

  findByName(tenant: string, name: string): GitSource | undefined {
    const row = this.sql.get(`SELECT * FROM sources WHERE tenant = ? AND name = ?`).get(tenant, name) as SourceRow | undefined;
    return row && fromRow(row);
  }

  /** Every source of every tenant (the sync loop's schedule). */
  all(): GitSource[] {
    return (this.sql.get(`SELECT * FROM sources ORDER BY created_at, id`).all() as SourceRow[]).map(fromRow);
  }

  page(tenant: string, request: PageRequest): Page<GitSource> {
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 2);
    const rows = this.sql
      .get(
        `SELECT * FROM sources WHERE tenant = @tenant AND ((created_at, id) > (@afterCreated, @afterId) OR @afterCreated IS NULL)
         ORDER BY created_at, id LIMIT @fetch`,
      )
      .all({ tenant, afterCreated: after?.[0] ?? null, afterId: after?.[1] ?? null, fetch: request.limit + 1 }) as SourceRow[];
    return toPage(rows.map(fromRow), request.limit, (s) => [s.createdAt, s.id]);
  }

  /** Changes settings; a new ref or path, turning prune on, or suspending or resuming asks for a sync at once. */
  update(id: string, changes: GitSourceChanges): GitSource {
    return this.db
      .transaction((): GitSource => {
        const current = this.require(id);
        const next = { ...current, ...changes };
        const resync = next.ref !== current.ref || next.path !== current.path || current.suspended !== next.suspended || (!current.prune && next.prune);
        this.sql
          .get(
            `UPDATE sources SET ref = ?, path = ?, interval_seconds = ?, prune = ?, suspended = ?, sync_requests = sync_requests + ?, updated_at = ? WHERE id = ?`,
          )
          .run(next.ref, next.path, next.intervalSeconds, next.prune ? 1 : 0, next.suspended ? 1 : 0, resync ? 1 : 0, nowIso(), id);
        return this.require(id);
      })
      .immediate();
  }

  /** Removes the source and its secrets. Call inside the transaction that deals with its resources. */
  remove(id: string): void {
    const current = this.require(id);
    this.sql.get(`DELETE FROM sources WHERE id = ?`).run(id);
    this.secrets.delete(current.tenant, 'source-webhook', id);
    this.secrets.delete(current.tenant, 'source-credentials', id);
  }

  /** Asks the sync loop to sync now; returns false when there is no such source. */
  requestSync(id: string): boolean {
    return this.sql.get(`UPDATE sources SET sync_requests = sync_requests + 1 WHERE id = ?`).run(id).changes === 1;
  }

  webhookSecret(source: GitSource): string | undefined {
    return this.secrets.get(source.tenant, 'source-webhook', source.id);
  }

  credentials(source: GitSource): SourceCredentials | undefined {
    const text = this.secrets.get(source.tenant, 'source-credentials', source.id);
    return text === undefined ? undefined : (JSON.parse(text) as SourceCredentials);
  }

  /** Writes what a sync attempt found. */
  recordSync(id: string, record: SyncRecord): void {
    const now = nowIso();
    this.sql
      .get(
        `UPDATE sources SET attempted_revision = @attempted, revision = COALESCE(@revision, revision), last_attempt_at = @now,
           last_synced_at = CASE WHEN @revision IS NULL THEN last_synced_at ELSE @now END,
           conditions = @conditions, errors = @errors, orphans = @orphans, conflicts = @conflicts
         WHERE id = @id`,
      )
      .run({
        id, now, attempted: record.attemptedRevision, revision: record.revision ?? null,
        conditions: JSON.stringify(record.conditions), errors: JSON.stringify(record.errors),
        orphans: JSON.stringify(record.orphans), conflicts: JSON.stringify(record.conflicts),
      });
  }

  /** Conflicts other sources reported against resources `owner` holds (the other half of "reported on both"). */
  conflictsAgainst(owner: string): SourceConflict[] {
    const rows = this.sql.get(`SELECT conflicts FROM sources WHERE conflicts LIKE ?`).all(`%${owner}%`) as Array<{ conflicts: string }>;
    return rows.flatMap((r) => (JSON.parse(r.conflicts) as SourceConflict[]).filter((c) => c.owner === owner));
  }

  private require(id: string): GitSource {
    const found = this.get(id);
    if (!found) throw new NotFoundError(`no source has id ${id}`);
    return found;
  }
}
