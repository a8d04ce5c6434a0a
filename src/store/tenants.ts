/**
 * @module Tenants: the isolation unit every resource, membership and token belongs to. The
 * `default` tenant exists from the first migration; others get a UUID id.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: string;
}

interface TenantRow {
  id: string;
  name: string;
  created_at: string;
}

const toRecord = (row: TenantRow): TenantRecord => ({ id: row.id, name: row.name, createdAt: row.created_at });

export class Tenants {
  private readonly sql: StatementCache;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  get(id: string): TenantRecord | undefined {
    const row = this.sql.get(`SELECT id, name, created_at FROM tenants WHERE id = ?`).get(id) as TenantRow | undefined;
    return row && toRecord(row);
  }

  findByName(name: string): TenantRecord | undefined {
    const row = this.sql.get(`SELECT id, name, created_at FROM tenants WHERE name = ?`).get(name) as TenantRow | undefined;
    return row && toRecord(row);
  }

  /** The tenant named `name`, created (with a new UUID) when there is none. */
  findOrCreate(name: string): { tenant: TenantRecord; created: boolean } {
    const existing = this.findByName(name);
    if (existing) return { tenant: existing, created: false };
    const row: TenantRow = { id: randomUUID(), name, created_at: nowIso() };
    const inserted = this.sql.get(`INSERT INTO tenants (id, name, created_at) VALUES (@id, @name, @created_at) ON CONFLICT (name) DO NOTHING`).run(row);
    return inserted.changes === 1 ? { tenant: toRecord(row), created: true } : { tenant: this.findByName(name)!, created: false };
  }
}
