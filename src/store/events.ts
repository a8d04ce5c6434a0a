/**
 * @module The event log: an append-only record of what the reconciler did to each resource.
 */
import type Database from 'better-sqlite3';
import type { Kind } from '../model/kinds.js';
import { nowIso, StatementCache } from './sqlite.js';

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
}

export class EventLog {
  private readonly insert: Database.Statement;

  private readonly sql: StatementCache;

  constructor(private readonly db: Database.Database) {
    this.sql = new StatementCache(db);
    this.insert = db.prepare(
      `INSERT INTO events (tenant, uid, kind, namespace, name, type, reason, message, created_at)
       VALUES (@tenant, @uid, @kind, @namespace, @name, @type, @reason, @message, @created_at)`,
    );
  }

  append(event: NewEvent): void {
    this.insert.run({ ...event, created_at: nowIso() });
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
  };
}
