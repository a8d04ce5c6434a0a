/**
 * @module The audit log: who did what to which target, per tenant, append-only (reads of
 * credentials, token and membership changes).
 */
import type { SqlConnection } from './connection.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface AuditEntry {
  tenant: string;
  /** A principal's subject: `user:<id>`, `token:<id>`, or `cli` for the local command line. */
  actor: string;
  /** What was done, e.g. `database.credentials.read`. */
  action: string;
  /** What it was done to, e.g. `database:<uid>`. */
  target: string;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  createdAt: string;
}

interface AuditRow {
  id: number;
  tenant: string;
  actor: string;
  action: string;
  target: string;
  created_at: string;
}

export class AuditLog {
  private readonly sql: StatementCache;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  append(entry: AuditEntry): AuditRecord {
    const createdAt = nowIso();
    // RETURNING, not the driver's last insert rowid: both engines answer it.
    const { id } = this.sql
      .get(`INSERT INTO audit_log (tenant, actor, action, target, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`)
      .get(entry.tenant, entry.actor, entry.action, entry.target, createdAt) as { id: number };
    return { ...entry, id, createdAt };
  }

  /** The tenant's entries, newest first. */
  list(tenant: string, page: PageRequest): Page<AuditRecord> {
    const before = page.cursor ? decodeCursor(page.cursor, 1)[0] : null;
    const rows = this.sql
      .get(`SELECT id, tenant, actor, action, target, created_at FROM audit_log WHERE tenant = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`)
      .all(tenant, before, before, page.limit + 1) as AuditRow[];
    const records = rows.map((r) => ({ id: r.id, tenant: r.tenant, actor: r.actor, action: r.action, target: r.target, createdAt: r.created_at }));
    return toPage(records, page.limit, (r) => [r.id]);
  }
}
