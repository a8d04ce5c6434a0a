/**
 * @module One-off actions on a resource (reboot, start, stop, restore, credential rotation): the
 * API asks for them (waking the resource's reconciler in the same transaction); the reconciler
 * carries each out in order — pending → running → succeeded | failed — noting how far a running
 * one got, so that after a crash it knows what is left to do.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { NotFoundError } from '../model/errors.js';
import type { Kind } from '../model/kinds.js';
import type { WakeResource } from './backups.js';
import type { ActionRecord, ActionStatus, ActionType } from './records.js';
import { nowIso, StatementCache } from './sqlite.js';

/** An action with how far the reconciler got with it. */
export interface ActionProgress extends ActionRecord {
  /** A reconciler's mark of the last step done (e.g. `reboot-sent`); null before any. */
  step: string | null;
}

interface ActionRow {
  id: string;
  tenant: string;
  uid: string;
  type: ActionType;
  params: string;
  status: ActionStatus;
  step: string | null;
  message: string | null;
  created_at: string;
  finished_at: string | null;
}

const COLUMNS = 'id, tenant, uid, type, params, status, step, message, created_at, finished_at';

function toRecord(row: ActionRow): ActionRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    uid: row.uid,
    type: row.type,
    params: JSON.parse(row.params) as Record<string, unknown>,
    status: row.status,
    message: row.message,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

/** The kinds that take each action. */
export const ACTION_TARGETS: Readonly<Record<ActionType, readonly Kind[]>> = {
  start: ['Server', 'App'],
  stop: ['Server', 'App'],
  reboot: ['Server'],
  restore: ['Database'],
  rotate_credentials: ['Database'],
};

export class Actions {
  private readonly sql: StatementCache;

  constructor(
    private readonly db: SqlConnection,
    private readonly wake: WakeResource,
  ) {
    this.sql = new StatementCache(db);
  }

  /** Asks for an action (status pending) and wakes the resource's reconciler; the resource must be of the action's kind. */
  request(tenant: string, uid: string, type: ActionType, params: Record<string, unknown>): ActionRecord {
    return this.db
      .transaction((): ActionRecord => {
        const kinds = ACTION_TARGETS[type];
        if (!kinds.some((kind) => this.wake(uid, tenant, kind))) {
          throw new NotFoundError(`no ${kinds.map((k) => k.toLowerCase()).join(' or ')} has id ${uid}`);
        }
        return toRecord(this.insert(tenant, uid, type, params));
      })
      .immediate();
  }

  get(id: string): ActionRecord | undefined {
    const row = this.row(id);
    return row && toRecord(row);
  }

  /** The resource's unfinished actions (pending or running), oldest first, with their progress. */
  open(uid: string): ActionProgress[] {
    const rows = this.sql.get(`SELECT ${COLUMNS} FROM actions WHERE uid = ? AND status IN ('pending', 'running') ORDER BY seq`).all(uid) as ActionRow[];
    return rows.map((row) => ({ ...toRecord(row), step: row.step }));
  }

  /** Marks a pending action running; false when it was not pending. */
  markRunning(id: string): boolean {
    return this.sql.get(`UPDATE actions SET status = 'running' WHERE id = ? AND status = 'pending'`).run(id).changes === 1;
  }

  /** Notes how far a running action got. */
  markStep(id: string, step: string): void {
    this.sql.get(`UPDATE actions SET step = ? WHERE id = ? AND status = 'running'`).run(step, id);
  }

  /** Ends an unfinished action; a finished one is left as it is. */
  finish(id: string, status: 'succeeded' | 'failed', message: string): void {
    this.db
      .transaction((): void => {
        const row = this.row(id);
        if (!row || (row.status !== 'pending' && row.status !== 'running')) return;
        this.sql.get(`UPDATE actions SET status = ?, message = ?, finished_at = ? WHERE id = ?`).run(status, message, nowIso(), id);
      })
      .immediate();
  }

  /** Fails every unfinished action on the resource (it is being deleted). */
  failOpen(uid: string, message: string): number {
    return this.sql
      .get(`UPDATE actions SET status = 'failed', message = ?, finished_at = ? WHERE uid = ? AND status IN ('pending', 'running')`)
      .run(message, nowIso(), uid).changes;
  }

  private row(id: string): ActionRow | undefined {
    return this.sql.get(`SELECT ${COLUMNS} FROM actions WHERE id = ?`).get(id) as ActionRow | undefined;
  }

  private insert(tenant: string, uid: string, type: ActionType, params: Record<string, unknown>): ActionRow {
    const id = randomUUID();
    this.sql
      .get(`INSERT INTO actions (id, tenant, uid, type, params, status, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)`)
      .run(id, tenant, uid, type, JSON.stringify(params), nowIso());
    return this.row(id) as ActionRow;
  }
}
