/**
 * @module Deployments of apps: one per rollout to the vendor. The API queues them (POST
 * /apps/{id}/deploy, waking the app's reconciler in the same transaction); the reconciler adds
 * one for each rollout of a changed configuration, and moves each queued → deploying →
 * succeeded | failed. Versions count 1, 2, 3... per app.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { NotFoundError } from '../model/errors.js';
import type { WakeResource } from './backups.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import type { DeploymentRecord, DeploymentStatus, DeploymentTrigger } from './records.js';
import { nowIso, StatementCache } from './sqlite.js';

/** A deployment with what the reconciler tracks of its rollout. */
export interface DeploymentRollout extends DeploymentRecord {
  /** The vendor's release number it rolled out, once the vendor has it. */
  release: number | null;
  /** The reconciler's digest of the configuration it sent. */
  configDigest: string | null;
  /** The vendor's digest of the release it made. */
  releaseDigest: string | null;
}

/** What the vendor made of a rollout. */
export interface RolledOut {
  release: number;
  configDigest: string;
  releaseDigest: string | null;
}

interface DeploymentRow {
  seq: number;
  id: string;
  tenant: string;
  app_uid: string;
  version: number;
  status: DeploymentStatus;
  trigger: DeploymentTrigger;
  ref: string | null;
  commit_sha: string | null;
  message: string | null;
  build_output_tail: string | null;
  release: number | null;
  config_digest: string | null;
  release_digest: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const COLUMNS = 'seq, id, tenant, app_uid, version, status, trigger, ref, commit_sha, message, build_output_tail, release, config_digest, release_digest, created_at, started_at, finished_at';

function toRecord(row: DeploymentRow): DeploymentRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    appUid: row.app_uid,
    version: row.version,
    status: row.status,
    trigger: row.trigger,
    ref: row.ref,
    commit: row.commit_sha,
    message: row.message,
    buildOutputTail: row.build_output_tail,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

function toRollout(row: DeploymentRow): DeploymentRollout {
  return { ...toRecord(row), release: row.release, configDigest: row.config_digest, releaseDigest: row.release_digest };
}

/** How much of a deployment's build and start output is kept: its last MiB. */
export const BUILD_LOG_MAX_BYTES = 1024 * 1024;

/** What asks for a deployment: the API (the default) or a push webhook, with the pushed commit and the delivery's id. */
export interface DeploymentRequest {
  ref: string | null;
  trigger?: 'api' | 'webhook';
  commit?: string | null;
  deliveryId?: string | null;
}

/** The last `max` bytes of `text`, starting on a whole line when it was cut. */
export function lastBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  const cut = bytes.subarray(bytes.length - max).toString('utf8');
  const newline = cut.indexOf('\n');
  return newline >= 0 ? cut.slice(newline + 1) : cut;
}

export class Deployments {
  private readonly sql: StatementCache;

  constructor(
    private readonly db: SqlConnection,
    private readonly wake: WakeResource,
  ) {
    this.sql = new StatementCache(db);
  }

  /**
   * Queues a deployment asked for through the API or a push webhook (the next version) and wakes
   * the app's reconciler. A webhook's delivery id is kept: `byDelivery` finds it again.
   */
  request(tenant: string, appUid: string, options: DeploymentRequest): DeploymentRecord {
    return this.db
      .transaction((): DeploymentRecord => {
        if (!this.wake(appUid, tenant, 'App')) throw new NotFoundError(`no app has id ${appUid}`);
        return toRecord(this.insert(tenant, appUid, options.trigger ?? 'api', options.ref, options.commit ?? null, options.deliveryId ?? null));
      })
      .immediate();
  }

  /** The deployment a webhook delivery already asked for, if any. */
  byDelivery(appUid: string, deliveryId: string): DeploymentRecord | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS} FROM deployments WHERE app_uid = ? AND delivery_id = ?`).get(appUid, deliveryId) as DeploymentRow | undefined;
    return row && toRecord(row);
  }

  /** Keeps the build and start output of a deployment, cut to its last `BUILD_LOG_MAX_BYTES`. */
  keepBuildLog(id: string, text: string): void {
    this.sql.get(`UPDATE deployments SET build_log = ? WHERE id = ?`).run(lastBytes(text, BUILD_LOG_MAX_BYTES), id);
  }

  /** The kept build and start output, or undefined when none was kept (yet). */
  buildLog(id: string): string | undefined {
    const row = this.sql.get(`SELECT build_log FROM deployments WHERE id = ?`).get(id) as { build_log: string | null } | undefined;
    return row?.build_log ?? undefined;
  }

  get(id: string): DeploymentRecord | undefined {
    const row = this.row(id);
    return row && toRecord(row);
  }

  /** An app's deployments, newest first. */
  page(appUid: string, request: PageRequest): Page<DeploymentRecord> {
    const before = request.cursor === undefined ? null : decodeCursor(request.cursor, 1)[0];
    const rows = this.sql
      .get(`SELECT ${COLUMNS} FROM deployments WHERE app_uid = ? AND (? IS NULL OR seq < ?) ORDER BY seq DESC LIMIT ?`)
      .all(appUid, before ?? null, before ?? null, request.limit + 1) as DeploymentRow[];
    const page = toPage(rows, request.limit, (row) => [row.seq]);
    return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
  }

  /** The app's newest deployment, whatever its status. */
  latest(appUid: string): DeploymentRecord | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS} FROM deployments WHERE app_uid = ? ORDER BY seq DESC LIMIT 1`).get(appUid) as DeploymentRow | undefined;
    return row && toRecord(row);
  }

  /** The deployment with what the reconciler tracks of its rollout. */
  rollout(id: string): DeploymentRollout | undefined {
    const row = this.row(id);
    return row && toRollout(row);
  }

  /** The deployment the vendor's current release came from: the newest that reached the vendor. */
  current(appUid: string): DeploymentRollout | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS} FROM deployments WHERE app_uid = ? AND release IS NOT NULL ORDER BY seq DESC LIMIT 1`).get(appUid) as
      | DeploymentRow
      | undefined;
    return row && toRollout(row);
  }

  /**
   * The deployment the app's next rollout is for: the newest one queued, or one that began
   * but never reached the vendor (a crash between the two).
   */
  nextToRollOut(appUid: string): DeploymentRollout | undefined {
    const row = this.sql
      .get(
        `SELECT ${COLUMNS} FROM deployments WHERE app_uid = ? AND (status = 'queued' OR (status = 'deploying' AND release IS NULL))
         ORDER BY seq DESC LIMIT 1`,
      )
      .get(appUid) as DeploymentRow | undefined;
    return row && toRollout(row);
  }

  /** Adds a deployment for a rollout the reconciler starts because the configuration changed. */
  addForConfig(tenant: string, appUid: string): DeploymentRollout {
    return this.db.transaction((): DeploymentRollout => toRollout(this.insert(tenant, appUid, 'config', null))).immediate();
  }

  /**
   * Starts the rollout of `id` (status deploying). Every other unfinished deployment of the app
   * fails as superseded by it, in the same transaction.
   */
  begin(id: string): DeploymentRollout {
    return this.db
      .transaction((): DeploymentRollout => {
        const row = this.row(id);
        if (!row) throw new NotFoundError(`no deployment has id ${id}`);
        const now = nowIso();
        this.sql
          .get(
            `UPDATE deployments SET status = 'failed', message = ?, finished_at = ?
             WHERE app_uid = ? AND id <> ? AND status IN ('queued', 'building', 'deploying')`,
          )
          .run(`superseded by deployment ${row.version}`, now, row.app_uid, id);
        this.sql
          .get(`UPDATE deployments SET status = 'deploying', started_at = COALESCE(started_at, ?) WHERE id = ? AND status IN ('queued', 'building', 'deploying')`)
          .run(now, id);
        return toRollout(this.row(id) as DeploymentRow);
      })
      .immediate();
  }

  /** The vendor has the rollout, as `rolledOut.release`. */
  markRolledOut(id: string, rolledOut: RolledOut): void {
    this.sql
      .get(`UPDATE deployments SET release = ?, config_digest = ?, release_digest = ? WHERE id = ? AND status = 'deploying'`)
      .run(rolledOut.release, rolledOut.configDigest, rolledOut.releaseDigest, id);
  }

  /** Ends an unfinished deployment; a finished one is left as it is. */
  finish(id: string, outcome: { status: 'succeeded' | 'failed'; message: string | null; commit: string | null; buildOutputTail: string | null }): void {
    this.sql
      .get(
        `UPDATE deployments SET status = ?, message = ?, commit_sha = COALESCE(?, commit_sha), build_output_tail = ?, finished_at = ?
         WHERE id = ? AND status IN ('queued', 'building', 'deploying')`,
      )
      .run(outcome.status, outcome.message, outcome.commit, outcome.buildOutputTail, nowIso(), id);
  }

  /** Fails every unfinished deployment of the app (it is being deleted). */
  failUnfinished(appUid: string, message: string): number {
    return this.sql
      .get(`UPDATE deployments SET status = 'failed', message = ?, finished_at = ? WHERE app_uid = ? AND status IN ('queued', 'building', 'deploying')`)
      .run(message, nowIso(), appUid).changes;
  }

  private row(id: string): DeploymentRow | undefined {
    return this.sql.get(`SELECT ${COLUMNS} FROM deployments WHERE id = ?`).get(id) as DeploymentRow | undefined;
  }

  private insert(tenant: string, appUid: string, trigger: DeploymentTrigger, ref: string | null, commit: string | null = null, deliveryId: string | null = null): DeploymentRow {
    const id = randomUUID();
    const next = this.sql.get(`SELECT COALESCE(MAX(version), 0) + 1 AS version FROM deployments WHERE app_uid = ?`).get(appUid) as { version: number };
    this.sql
      .get(
        `INSERT INTO deployments (id, tenant, app_uid, version, status, trigger, ref, commit_sha, delivery_id, created_at)
         VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
      )
      .run(id, tenant, appUid, next.version, trigger, ref, commit, deliveryId, nowIso());
    return this.row(id) as DeploymentRow;
  }
}
