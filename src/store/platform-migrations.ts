/**
 * @module Migrations from hosting platforms (Heroku, Railway), per tenant: what moves, where to,
 * and each step's outcome. The runner (src/migrations/runner.ts) writes a step as `running`
 * before it acts and `succeeded` once done, so a restart knows what was finished. No API key and
 * no config var value is ever written here.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { NotFoundError } from '../model/errors.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import { nowIso, StatementCache } from './sqlite.js';

export type MigrationStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/** One step of a migration and its outcome. */
export interface MigrationStep {
  name: string;
  status: MigrationStatus;
  /** What it did or is doing, in words. */
  detail: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Why it failed, when it did. */
  error: string | null;
}

/** A resource the migration created (or found already there). */
export interface MigrationResource {
  kind: 'Database' | 'App';
  name: string;
  id: string;
}

export interface PlatformMigration {
  id: string;
  tenant: string;
  platform: 'heroku' | 'railway';
  /** The Heroku app (name or id) or Railway project id, as the platform takes it. */
  subject: string;
  subjectName: string;
  serverId: string;
  serverName: string;
  status: MigrationStatus;
  steps: MigrationStep[];
  resources: MigrationResource[];
  /** What the platform said of the subject when the migration was asked for (names, never values; JSON). */
  analysis: Record<string, unknown>;
  /** The manifests it applies (YAML, multi-document). */
  manifests: string;
  url: string | null;
  error: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewPlatformMigration = Pick<PlatformMigration, 'tenant' | 'platform' | 'subject' | 'subjectName' | 'serverId' | 'serverName' | 'analysis' | 'manifests' | 'createdBy'> & {
  stepNames: readonly string[];
};

/** What a runner changes of a migration. */
export type MigrationProgress = Partial<Pick<PlatformMigration, 'status' | 'steps' | 'resources' | 'manifests' | 'url' | 'error'>>;

interface Row {
  seq: number;
  id: string;
  tenant: string;
  platform: 'heroku' | 'railway';
  subject: string;
  subject_name: string;
  server_id: string;
  server_name: string;
  status: MigrationStatus;
  steps: string;
  resources: string;
  analysis: string;
  manifests: string;
  url: string | null;
  error: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

function toRecord(row: Row): PlatformMigration {
  return {
    id: row.id,
    tenant: row.tenant,
    platform: row.platform,
    subject: row.subject,
    subjectName: row.subject_name,
    serverId: row.server_id,
    serverName: row.server_name,
    status: row.status,
    steps: JSON.parse(row.steps) as MigrationStep[],
    resources: JSON.parse(row.resources) as MigrationResource[],
    analysis: JSON.parse(row.analysis) as Record<string, unknown>,
    manifests: row.manifests,
    url: row.url,
    error: row.error,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class PlatformMigrations {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  /** Records a new migration, every step pending. */
  create(input: NewPlatformMigration): PlatformMigration {
    const now = nowIso();
    const id = randomUUID();
    const steps: MigrationStep[] = input.stepNames.map((name) => ({ name, status: 'pending', detail: null, startedAt: null, finishedAt: null, error: null }));
    this.sql
      .get(
        `INSERT INTO platform_migrations (id, tenant, platform, subject, subject_name, server_id, server_name, status, steps, analysis, manifests, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, input.tenant, input.platform, input.subject, input.subjectName, input.serverId, input.serverName, JSON.stringify(steps), JSON.stringify(input.analysis), input.manifests, input.createdBy, now, now);
    return this.require(input.tenant, id);
  }

  /** The tenant's migration, or undefined (another tenant's is not found either). */
  get(tenant: string, id: string): PlatformMigration | undefined {
    const row = this.sql.get(`SELECT * FROM platform_migrations WHERE id = ? AND tenant = ?`).get(id, tenant) as Row | undefined;
    return row && toRecord(row);
  }

  require(tenant: string, id: string): PlatformMigration {
    const found = this.get(tenant, id);
    if (!found) throw new NotFoundError(`no migration has id ${id}`);
    return found;
  }

  /** The tenant's migrations, newest first. */
  page(tenant: string, request: PageRequest): Page<PlatformMigration> {
    const before = request.cursor === undefined ? null : decodeCursor(request.cursor, 1)[0];
    const rows = this.sql
      .get(`SELECT * FROM platform_migrations WHERE tenant = ? AND (? IS NULL OR seq < ?) ORDER BY seq DESC LIMIT ?`)
      .all(tenant, before ?? null, before ?? null, request.limit + 1) as Row[];
    const page = toPage(rows, request.limit, (row) => [row.seq]);
    return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
  }

  /** Every tenant's migrations still pending or running, oldest first (what a restarted runner resumes). */
  unfinished(): PlatformMigration[] {
    return (this.sql.get(`SELECT * FROM platform_migrations WHERE status IN ('pending', 'running') ORDER BY seq`).all() as Row[]).map(toRecord);
  }

  /** Writes what changed and returns the migration as stored. */
  update(tenant: string, id: string, change: MigrationProgress): PlatformMigration {
    return this.db
      .transaction((): PlatformMigration => {
        const current = this.require(tenant, id);
        const next = { ...current, ...change };
        this.sql
          .get(`UPDATE platform_migrations SET status = ?, steps = ?, resources = ?, manifests = ?, url = ?, error = ?, updated_at = ? WHERE id = ? AND tenant = ?`)
          .run(next.status, JSON.stringify(next.steps), JSON.stringify(next.resources), next.manifests, next.url, next.error, nowIso(), id, tenant);
        return this.require(tenant, id);
      })
      .immediate();
  }
}
