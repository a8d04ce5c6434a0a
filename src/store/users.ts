/**
 * @module Users and their memberships of tenants. Emails are kept trimmed and lower-cased, and
 * unique regardless of case; passwords only as hashes (see ../auth/passwords.ts).
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import type { Role } from '../auth/roles.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface UserRecord {
  id: string;
  email: string;
  createdAt: string;
}

export interface UserWithPassword extends UserRecord {
  passwordHash: string;
}

export interface MembershipRecord {
  tenantId: string;
  tenantName: string;
  role: Role;
  createdAt: string;
}

export interface UserWithMemberships extends UserRecord {
  memberships: MembershipRecord[];
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  created_at: string;
}

interface MembershipRow {
  user_id: string;
  tenant: string;
  tenant_name: string;
  role: Role;
  created_at: string;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const toMembership = (row: MembershipRow): MembershipRecord => ({ tenantId: row.tenant, tenantName: row.tenant_name, role: row.role, createdAt: row.created_at });

export class Users {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  create(email: string, passwordHash: string): UserRecord {
    const now = nowIso();
    const user = { id: randomUUID(), email: normalizeEmail(email), createdAt: now };
    this.sql
      .get(`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`)
      .run(user.id, user.email, passwordHash, now, now);
    return user;
  }

  findByEmail(email: string): UserWithPassword | undefined {
    const row = this.sql.get(`SELECT id, email, password_hash, created_at FROM users WHERE email = ?`).get(normalizeEmail(email)) as UserRow | undefined;
    return row && { id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at };
  }

  get(id: string): UserRecord | undefined {
    const row = this.sql.get(`SELECT id, email, created_at FROM users WHERE id = ?`).get(id) as UserRow | undefined;
    return row && { id: row.id, email: row.email, createdAt: row.created_at };
  }

  count(): number {
    return (this.sql.get(`SELECT count(*) AS n FROM users`).get() as { n: number }).n;
  }

  /** Every user with their memberships, by email. */
  list(): UserWithMemberships[] {
    const users = this.sql.get(`SELECT id, email, created_at FROM users ORDER BY email`).all() as UserRow[];
    const memberships = this.sql
      .get(
        `SELECT m.user_id, m.tenant, t.name AS tenant_name, m.role, m.created_at
         FROM memberships m JOIN tenants t ON t.id = m.tenant ORDER BY t.name`,
      )
      .all() as MembershipRow[];
    return users.map((u) => ({
      id: u.id,
      email: u.email,
      createdAt: u.created_at,
      memberships: memberships.filter((m) => m.user_id === u.id).map(toMembership),
    }));
  }

  /** The user's role in the tenant, or undefined when not a member. */
  role(tenant: string, userId: string): Role | undefined {
    return (this.sql.get(`SELECT role FROM memberships WHERE tenant = ? AND user_id = ?`).get(tenant, userId) as { role: Role } | undefined)?.role;
  }

  memberships(userId: string): MembershipRecord[] {
    const rows = this.sql
      .get(
        `SELECT m.user_id, m.tenant, t.name AS tenant_name, m.role, m.created_at
         FROM memberships m JOIN tenants t ON t.id = m.tenant WHERE m.user_id = ? ORDER BY t.name`,
      )
      .all(userId) as MembershipRow[];
    return rows.map(toMembership);
  }

  /** Adds the user to the tenant, or changes their role there; returns the role they had before. */
  setRole(tenant: string, userId: string, role: Role): Role | undefined {
    return this.db.transaction((): Role | undefined => {
      const previous = this.role(tenant, userId);
      this.sql
        .get(
          `INSERT INTO memberships (tenant, user_id, role, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (tenant, user_id) DO UPDATE SET role = excluded.role`,
        )
        .run(tenant, userId, role, nowIso());
      return previous;
    })();
  }

  /** Removes the user from the tenant; their sign-ins there stop working at once. */
  removeMembership(tenant: string, userId: string): boolean {
    return this.sql.get(`DELETE FROM memberships WHERE tenant = ? AND user_id = ?`).run(tenant, userId).changes === 1;
  }
}
