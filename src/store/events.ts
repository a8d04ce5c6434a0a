/**
 * @module The event log: what the reconciler did to each resource, kept bounded as Kubernetes
 * keeps its events. An event that repeats the resource's newest one (same type, reason and
 * message, within AGGREGATE_WINDOW_MS) is counted on it instead of added; each resource keeps
 * its newest CAIRN_EVENTS_PER_RESOURCE events (default 100); events not seen for
 * CAIRN_EVENT_TTL_HOURS (default 168, a week) are dropped.
 */
import type { SqlConnection, SqlStatement } from './connection.js';
import type { Kind } from '../model/kinds.js';
import { StatementCache } from './sqlite.js';

export type EventType = 'Normal' | 'Warning';

export interface NewEvent {
  tenant: string;
  uid: string;
  kind: Kind;
  namespace: string;
  name: string;
  type: EventType;
  reason: string;
  message: string;
}

export interface RecordedEvent extends NewEvent {
  id: number;
  createdAt: string;
  /** How many times it happened (repeats are counted, not added). */
  count: number;
  lastSeenAt: string;
}

/** How long a repeat is counted on the event it repeats rather than added as a new one. */
const AGGREGATE_WINDOW_MS = 10 * 60_000;
/** Age pruning runs on the first append and then every this many appends. */
const PRUNE_EVERY = 500;

export interface EventBounds {
  perResource: number;
  ttlMs: number;
}

/** The bounds the environment sets (CAIRN_EVENTS_PER_RESOURCE, CAIRN_EVENT_TTL_HOURS). */
export function eventBoundsFromEnv(env: NodeJS.ProcessEnv = process.env): EventBounds {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be a number >= 1, got "${raw}"`);
    return value;
  };
  return { perResource: Math.floor(read('CAIRN_EVENTS_PER_RESOURCE', 100)), ttlMs: read('CAIRN_EVENT_TTL_HOURS', 168) * 3_600_000 };
}

export interface EventQuery {
  tenant: string;
  uid?: string;
  /** Only events older than this id (for paging newest first). */
  beforeId?: number;
  limit?: number;
}

interface EventRow {
  id: number;
  tenant: string;
  uid: string;
  kind: string;
  namespace: string;
  name: string;
  type: EventType;
  reason: string;
  message: string;
  created_at: string;
  count: number;
  last_seen_at: string | null;
}

export class EventLog {
  private readonly insert: SqlStatement;

  private readonly sql: StatementCache;
  private appendsUntilPrune = 0;

  constructor(
    private readonly db: SqlConnection,
    private readonly bounds: EventBounds = eventBoundsFromEnv(),
    private readonly now: () => Date = () => new Date(),
  ) {
    this.sql = new StatementCache(db);
    this.insert = db.prepare(
      `INSERT INTO events (tenant, uid, kind, namespace, name, type, reason, message, created_at, last_seen_at)
       VALUES (@tenant, @uid, @kind, @namespace, @name, @type, @reason, @message, @at, @at)`,
    );
  }

  /** Records `event`: counted on the resource's newest event when it repeats it, else added (within the bounds). */
  append(event: NewEvent): void {
    const now = this.now();
    const at = now.toISOString();
    this.db.transaction(() => {
      const newest = this.sql.get(`SELECT id, type, reason, message, last_seen_at FROM events WHERE uid = ? ORDER BY id DESC LIMIT 1`).get(event.uid) as
        | Pick<EventRow, 'id' | 'type' | 'reason' | 'message' | 'last_seen_at'>
        | undefined;
      const repeats = newest !== undefined && newest.type === event.type && newest.reason === event.reason && newest.message === event.message &&
        now.getTime() - Date.parse(newest.last_seen_at ?? at) <= AGGREGATE_WINDOW_MS;
      if (repeats) {
        this.sql.get(`UPDATE events SET count = count + 1, last_seen_at = ? WHERE id = ?`).run(at, newest.id);
        return;
      }
      this.insert.run({ ...event, at });
      this.sql
        .get(`DELETE FROM events WHERE uid = @uid AND id <= (SELECT id FROM events WHERE uid = @uid ORDER BY id DESC LIMIT 1 OFFSET @keep)`)
        .run({ uid: event.uid, keep: this.bounds.perResource });
      if (this.appendsUntilPrune-- <= 0) {
        this.appendsUntilPrune = PRUNE_EVERY;
        this.pruneOlderThan(new Date(now.getTime() - this.bounds.ttlMs));
      }
    })();
  }

  /** Drops events last seen before `cutoff`; returns how many. */
  pruneOlderThan(cutoff: Date): number {
    return this.sql.get(`DELETE FROM events WHERE last_seen_at < ?`).run(cutoff.toISOString()).changes;
  }

  /** Events after `afterId`, oldest first (at most `limit`): what a forwarder has not sent yet. */
  after(afterId: number, limit = 500): RecordedEvent[] {
    const rows = this.sql.get(`SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?`).all(afterId, limit) as EventRow[];
    return rows.map(toRecordedEvent);
  }

  /** The newest event's id (0 when there are none). */
  lastId(): number {
    return (this.sql.get(`SELECT COALESCE(MAX(id), 0) AS id FROM events`).get() as { id: number }).id;
  }

  /** Newest first. */
  list(query: EventQuery): RecordedEvent[] {
    const where = ['tenant = @tenant'];
    if (query.uid) where.push('uid = @uid');
    if (query.beforeId !== undefined) where.push('id < @beforeId');
    const rows = this.sql
      .get(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT @limit`)
      .all({ tenant: query.tenant, uid: query.uid, beforeId: query.beforeId, limit: query.limit ?? 50 }) as EventRow[];
    return rows.map(toRecordedEvent);
  }
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    tenant: row.tenant,
    uid: row.uid,
    kind: row.kind as Kind,
    namespace: row.namespace,
    name: row.name,
    type: row.type,
    reason: row.reason,
    message: row.message,
    createdAt: row.created_at,
    count: row.count,
    lastSeenAt: row.last_seen_at ?? row.created_at,
  };
}
