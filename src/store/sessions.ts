/**
 * @module Sign-in sessions and their refresh tokens (kept as SHA-256 hashes only). A refresh
 * token is used once: using it marks it used and stores its successor in one transaction;
 * presenting a used one again revokes the whole session, and with it every access token that
 * names the session.
 */
import type { SqlConnection, SqlStatement } from './connection.js';
import type { Role } from '../auth/roles.js';
import { StatementCache } from './sqlite.js';

/** What the API needs on every request that carries an access token. */
export interface SessionPrincipal {
  sessionId: string;
  userId: string;
  tenant: string;
  email: string;
  /** The user's current role in the session's tenant; null when no longer a member. */
  role: Role | null;
  revokedAt: string | null;
}

export interface NewSession {
  id: string;
  userId: string;
  tenant: string;
  clientAddress: string | null;
  refreshTokenHash: string;
  refreshExpiresAt: string;
  now: string;
}

export type RefreshOutcome =
  | { outcome: 'rotated'; session: SessionPrincipal & { role: Role } }
  | { outcome: 'unknown' | 'expired' | 'revoked' | 'not-a-member' }
  /** The token had been used already: the session is now revoked. */
  | { outcome: 'reused'; sessionId: string };

interface RefreshRow {
  session_id: string;
  expires_at: string;
  used_at: string | null;
  user_id: string;
  tenant: string;
  email: string;
  revoked_at: string | null;
  role: Role | null;
}

const PRINCIPAL_SQL = `
  SELECT s.id AS session_id, s.user_id, s.tenant, u.email, m.role, s.revoked_at
  FROM auth_sessions s
  JOIN users u ON u.id = s.user_id
  LEFT JOIN memberships m ON m.tenant = s.tenant AND m.user_id = s.user_id
  WHERE s.id = ?`;

export class AuthSessions {
  private readonly sql: StatementCache;
  private readonly principal: SqlStatement;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
    this.principal = db.prepare(PRINCIPAL_SQL);
  }

  /** Creates a session with its first refresh token. */
  create(session: NewSession): void {
    this.db
      .transaction((): void => {
        this.sql
          .get(`INSERT INTO auth_sessions (id, user_id, tenant, client_address, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)`)
          .run(session.id, session.userId, session.tenant, session.clientAddress, session.now, session.now);
        this.insertRefreshToken(session.refreshTokenHash, session.id, session.now, session.refreshExpiresAt);
        // Expired refresh tokens are of no use, not even to detect reuse.
        this.sql.get(`DELETE FROM refresh_tokens WHERE expires_at < ?`).run(session.now);
      })
      .immediate();
  }

  /** The session with its user and current role; undefined when there is no such session. */
  lookup(sessionId: string): SessionPrincipal | undefined {
    const row = this.principal.get(sessionId) as
      | { session_id: string; user_id: string; tenant: string; email: string; role: Role | null; revoked_at: string | null }
      | undefined;
    return row && { sessionId: row.session_id, userId: row.user_id, tenant: row.tenant, email: row.email, role: row.role, revokedAt: row.revoked_at };
  }

  /** Revokes a session; false when it did not exist or was revoked already. */
  revoke(sessionId: string, reason: string, now: string): boolean {
    return this.sql.get(`UPDATE auth_sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL`).run(now, reason, sessionId).changes === 1;
  }

  /** Revokes the session a refresh token (used or not) belongs to. */
  revokeByRefreshToken(tokenHash: string, reason: string, now: string): boolean {
    const row = this.sql.get(`SELECT session_id FROM refresh_tokens WHERE token_hash = ?`).get(tokenHash) as { session_id: string } | undefined;
    return row !== undefined && this.revoke(row.session_id, reason, now);
  }

  /** Uses a refresh token once, storing its successor; see RefreshOutcome. */
  useRefreshToken(tokenHash: string, next: { tokenHash: string; expiresAt: string }, now: string): RefreshOutcome {
    return this.db
      .transaction((): RefreshOutcome => {
        const row = this.sql
          .get(
            `SELECT r.session_id, r.expires_at, r.used_at, s.user_id, s.tenant, u.email, s.revoked_at, m.role
             FROM refresh_tokens r
             JOIN auth_sessions s ON s.id = r.session_id
             JOIN users u ON u.id = s.user_id
             LEFT JOIN memberships m ON m.tenant = s.tenant AND m.user_id = s.user_id
             WHERE r.token_hash = ?`,
          )
          .get(tokenHash) as RefreshRow | undefined;
        if (!row) return { outcome: 'unknown' };
        if (row.revoked_at !== null) return { outcome: 'revoked' };
        if (row.used_at !== null) {
          this.revoke(row.session_id, 'refresh token reused', now);
          return { outcome: 'reused', sessionId: row.session_id };
        }
        if (row.expires_at <= now) return { outcome: 'expired' };
        if (row.role === null) return { outcome: 'not-a-member' };
        this.sql.get(`UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?`).run(now, tokenHash);
        this.insertRefreshToken(next.tokenHash, row.session_id, now, next.expiresAt);
        this.sql.get(`UPDATE auth_sessions SET last_used_at = ? WHERE id = ?`).run(now, row.session_id);
        return {
          outcome: 'rotated',
          session: { sessionId: row.session_id, userId: row.user_id, tenant: row.tenant, email: row.email, role: row.role, revokedAt: null },
        };
      })
      .immediate();
  }

  private insertRefreshToken(tokenHash: string, sessionId: string, now: string, expiresAt: string): void {
    this.sql.get(`INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES (?, ?, ?, ?)`).run(tokenHash, sessionId, now, expiresAt);
  }
}
