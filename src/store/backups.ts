/**
 * @module Backups of databases: the API asks for manual ones (waking the database's reconciler
 * in the same transaction); the reconciler adds scheduled and final ones, carries each out at
 * the vendor (pending → running → completed | failed) and prunes scheduled ones beyond retention.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { NotFoundError } from '../model/errors.js';
import type { Kind } from '../model/kinds.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import type { BackupKind, BackupRecord, BackupStatus } from './records.js';
import { nowIso, StatementCache } from './sqlite.js';

interface BackupRow {
  seq: number;
  id: string;
  tenant: string;
  database_uid: string;
  kind: BackupKind;
  status: BackupStatus;
  external_id: string | null;
  size_bytes: number | null;
  checksum: string | null;
  message: string | null;
  created_at: string;
  completed_at: string | null;
}

const COLUMNS = 'seq, id, tenant, database_uid, kind, status, external_id, size_bytes, checksum, message, created_at, completed_at';

function toRecord(row: BackupRow): BackupRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    databaseUid: row.database_uid,
    kind: row.kind,
    status: row.status,
    externalId: row.external_id,
    sizeBytes: row.size_bytes,
    checksum: row.checksum,
    message: row.message,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/** Wakes a resource's reconciler; false when no resource of that kind has that uid in that tenant. */
export type WakeResource = (uid: string, tenant: string, kind: Kind) => boolean;

export class Backups {
  private readonly sql: StatementCache;

  constructor(
    private readonly db: SqlConnection,
    private readonly wake: WakeResource,
  ) {
    this.sql = new StatementCache(db);
  }

  /** Asks for a manual backup (status pending) and wakes the database's reconciler. */
  request(tenant: string, databaseUid: string, kind: 'manual'): BackupRecord {
    return this.db
      .transaction((): BackupRecord => {
        if (!this.wake(databaseUid, tenant, 'Database')) throw new NotFoundError(`no database has id ${databaseUid}`);
        return this.insert(tenant, databaseUid, kind, null);
      })
      .immediate();
  }

  get(id: string): BackupRecord | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS} FROM backups WHERE id = ?`).get(id) as BackupRow | undefined;
    return row && toRecord(row);
  }

  /** A database's backups, newest first. */
  page(databaseUid: string, request: PageRequest): Page<BackupRecord> {
    const before = request.cursor === undefined ? null : decodeCursor(request.cursor, 1)[0];
    const rows = this.sql
      .get(`SELECT ${COLUMNS} FROM backups WHERE database_uid = ? AND (? IS NULL OR seq < ?) ORDER BY seq DESC LIMIT ?`)
      .all(databaseUid, before ?? null, before ?? null, request.limit + 1) as BackupRow[];
    const page = toPage(rows, request.limit, (row) => [row.seq]);
    return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
  }

  /** Backups not finished yet (pending or running), oldest first. */
  open(databaseUid: string): BackupRecord[] {
    const rows = this.sql
      .get(`SELECT ${COLUMNS} FROM backups WHERE database_uid = ? AND status IN ('pending', 'running') ORDER BY seq`)
      .all(databaseUid) as BackupRow[];
    return rows.map(toRecord);
  }

  /**
   * The backup for `slot` (a scheduled backup's cron time, or the deletion a final backup
   * precedes), added as pending if there is none yet: asking twice never makes two.
   */
  forSlot(tenant: string, databaseUid: string, kind: 'scheduled' | 'final', slot: string): BackupRecord {
    return this.db
      .transaction((): BackupRecord => {
        const row = this.sql.get(`SELECT ${COLUMNS} FROM backups WHERE database_uid = ? AND slot = ?`).get(databaseUid, slot) as BackupRow | undefined;
        return row ? toRecord(row) : this.insert(tenant, databaseUid, kind, slot);
      })
      .immediate();
  }

  /** The backup for `slot`, if one was added. */
  findSlot(databaseUid: string, slot: string): BackupRecord | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS} FROM backups WHERE database_uid = ? AND slot = ?`).get(databaseUid, slot) as BackupRow | undefined;
    return row && toRecord(row);
  }

  /** The vendor has it and is working on it. */
  markRunning(id: string, externalId: string): void {
    this.sql.get(`UPDATE backups SET status = 'running', external_id = ? WHERE id = ? AND status IN ('pending', 'running')`).run(externalId, id);
  }

  markCompleted(id: string, result: { sizeBytes: number | null; checksum: string | null }): void {
    this.sql
      .get(`UPDATE backups SET status = 'completed', size_bytes = ?, checksum = ?, message = NULL, completed_at = ? WHERE id = ? AND status IN ('pending', 'running')`)
      .run(result.sizeBytes, result.checksum, nowIso(), id);
  }

  markFailed(id: string, message: string): void {
    this.sql
      .get(`UPDATE backups SET status = 'failed', message = ?, completed_at = ? WHERE id = ? AND status IN ('pending', 'running')`)
      .run(message, nowIso(), id);
  }

  /** Fails every backup of the database that has not reached the vendor yet. */
  failPending(databaseUid: string, message: string): number {
    return this.sql
      .get(`UPDATE backups SET status = 'failed', message = ?, completed_at = ? WHERE database_uid = ? AND status = 'pending'`)
      .run(message, nowIso(), databaseUid).changes;
  }

  /**
   * Scheduled backups that retention lets go, oldest first: every finished one older than the
   * `keep` newest completed ones (failed ones never push a good backup out).
   */
  beyondRetention(databaseUid: string, keep: number): BackupRecord[] {
    const oldestKept = this.sql
      .get(`SELECT seq FROM backups WHERE database_uid = ? AND kind = 'scheduled' AND status = 'completed' ORDER BY seq DESC LIMIT 1 OFFSET ?`)
      .get(databaseUid, keep - 1) as { seq: number } | undefined;
    if (!oldestKept) return [];
    const rows = this.sql
      .get(`SELECT ${COLUMNS} FROM backups WHERE database_uid = ? AND kind = 'scheduled' AND status IN ('completed', 'failed') AND seq < ? ORDER BY seq`)
      .all(databaseUid, oldestKept.seq) as BackupRow[];
    return rows.map(toRecord);
  }

  /** Forgets a backup (after retention deleted it at the vendor). */
  remove(id: string): void {
    this.sql.get(`DELETE FROM backups WHERE id = ?`).run(id);
  }

  /**
   * When the database's current backup schedule took effect: now, the first time this schedule
   * is seen (so a new schedule never backs up for a time before it existed).
   */
  scheduleSince(databaseUid: string, schedule: string, now: string): string {
    const current = (): { schedule: string; since: string } | undefined =>
      this.sql.get(`SELECT schedule, since FROM backup_schedules WHERE database_uid = ?`).get(databaseUid) as { schedule: string; since: string } | undefined;
    const seen = current();
    if (seen && seen.schedule === schedule) return seen.since; // the usual case: no write
    return this.db
      .transaction((): string => {
        const row = current();
        if (row && row.schedule === schedule) return row.since;
        this.sql
          .get(`INSERT INTO backup_schedules (database_uid, schedule, since) VALUES (?, ?, ?) ON CONFLICT (database_uid) DO UPDATE SET schedule = excluded.schedule, since = excluded.since`)
          .run(databaseUid, schedule, now);
        return now;
      })
      .immediate();
  }

  /** Drops the schedule bookkeeping (the schedule was removed, or the database is gone). */
  forgetSchedule(databaseUid: string): void {
    this.sql.get(`DELETE FROM backup_schedules WHERE database_uid = ?`).run(databaseUid);
  }

  private insert(tenant: string, databaseUid: string, kind: BackupKind, slot: string | null): BackupRecord {
    const id = randomUUID();
    this.sql
      .get(`INSERT INTO backups (id, tenant, database_uid, kind, status, slot, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`)
      .run(id, tenant, databaseUid, kind, slot, nowIso());
    const row = this.sql.get(`SELECT ${COLUMNS} FROM backups WHERE id = ?`).get(id) as BackupRow;
    return toRecord(row);
  }
}
