/**
 * @module API tokens for CI and scripts: stored as SHA-256 hashes only, per tenant, with a role,
 * an expiry and the subject that created them. Revoking keeps the row (for the audit trail) but
 * hides it from lists.
 */
import type { SqlConnection, SqlStatement } from './connection.js';
import type { Role } from '../auth/roles.js';
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import { StatementCache } from './sqlite.js';

/** What lists and the API show of a token (never the token itself), in the API's field names. */
export interface ApiTokenRecord {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface NewApiToken {
  id: string;
  tenant: string;
  name: string;
  role: Role;
  tokenHash: string;
  /** `user:<id>` or another subject. */
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
}

/** What authenticating with a token needs. */
export interface ApiTokenCredential extends ApiTokenRecord {
  tenant: string;
  createdBy: string;
  revokedAt: string | null;
  /** The creating user's current role in the token's tenant; null when they are no longer a member (or the creator is no user). */
  creatorRole: Role | null;
}

interface TokenRow {
  id: string;
  tenant: string;
  name: string;
  role: Role;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  creator_role?: Role | null;
}

const toRecord = (row: TokenRow): ApiTokenRecord => ({
  id: row.id,
  name: row.name,
  role: row.role,
  created_at: row.created_at,
  expires_at: row.expires_at,
  last_used_at: row.last_used_at,
});

const COLUMNS = 't.id, t.tenant, t.name, t.role, t.created_by, t.created_at, t.expires_at, t.last_used_at, t.revoked_at';

export class ApiTokens {
  private readonly sql: StatementCache;
  private readonly byHash: SqlStatement;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
    this.byHash = db.prepare(
      `SELECT ${COLUMNS}, m.role AS creator_role FROM api_tokens t
       LEFT JOIN memberships m ON m.tenant = t.tenant AND t.created_by = 'user:' || m.user_id
       WHERE t.token_hash = ?`,
    );
  }

  create(token: NewApiToken): ApiTokenRecord {
    this.sql
      .get(
        `INSERT INTO api_tokens (id, tenant, name, role, token_hash, created_by, created_at, expires_at)
         VALUES (@id, @tenant, @name, @role, @tokenHash, @createdBy, @createdAt, @expiresAt)`,
      )
      .run(token);
    return { id: token.id, name: token.name, role: token.role, created_at: token.createdAt, expires_at: token.expiresAt, last_used_at: null };
  }

  findByHash(tokenHash: string): ApiTokenCredential | undefined {
    const row = this.byHash.get(tokenHash) as TokenRow | undefined;
    return row && { ...toRecord(row), tenant: row.tenant, createdBy: row.created_by, revokedAt: row.revoked_at, creatorRole: row.creator_role ?? null };
  }

  /** A token of the tenant that has not been revoked. */
  get(tenant: string, id: string): (ApiTokenRecord & { createdBy: string }) | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS} FROM api_tokens t WHERE t.tenant = ? AND t.id = ? AND t.revoked_at IS NULL`).get(tenant, id) as
      | TokenRow
      | undefined;
    return row && { ...toRecord(row), createdBy: row.created_by };
  }

  /** The tenant's unrevoked tokens (only `createdBy`'s when given), newest first. */
  list(tenant: string, page: PageRequest, createdBy?: string): Page<ApiTokenRecord> {
    const after = page.cursor ? decodeCursor(page.cursor, 2) : undefined;
    const rows = this.sql
      .get(
        `SELECT ${COLUMNS} FROM api_tokens t
         WHERE t.tenant = @tenant AND t.revoked_at IS NULL
           AND (t.created_by = @createdBy OR @createdBy IS NULL)
           AND ((t.created_at, t.id) < (@afterCreated, @afterId) OR @afterCreated IS NULL)
         ORDER BY t.created_at DESC, t.id DESC LIMIT @limit`,
      )
      .all({ tenant, createdBy: createdBy ?? null, afterCreated: after?.[0] ?? null, afterId: after?.[1] ?? null, limit: page.limit + 1 }) as TokenRow[];
    return toPage(rows.map(toRecord), page.limit, (t) => [t.created_at, t.id]);
  }

  /** Revokes an unrevoked token of the tenant; false when there is none. */
  revoke(tenant: string, id: string, now: string): boolean {
    return this.sql.get(`UPDATE api_tokens SET revoked_at = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL`).run(now, tenant, id).changes === 1;
  }

  recordUse(id: string, now: string): void {
    this.sql.get(`UPDATE api_tokens SET last_used_at = ? WHERE id = ?`).run(now, id);
  }
}
