/**
 * @module Identities at external providers (GitHub, Google, GitLab) linked to cairn users, the
 * sign-ins started with them (`state` records: single use, consumed atomically) and the
 * one-time codes a redirect carries (single use). Secrets are kept only as SHA-256 hashes,
 * except the PKCE verifier, which the callback must send to the provider.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { RateLimitedError } from '../model/errors.js';
import { StatementCache } from './sqlite.js';

/** How many sign-ins through identity providers may be under way at once (each lives 10 minutes). */
export const MAX_PENDING_SIGN_INS = 10_000;

export interface IdentityRecord {
  id: string;
  provider: string;
  subject: string;
  userId: string;
  email: string;
  createdAt: string;
  lastUsedAt: string;
}

export interface SignInStateRecord {
  provider: string;
  codeVerifier: string;
  nonce: string | null;
  redirectUri: string | null;
  tenantName: string | null;
  expiresAt: string;
}

export interface SignInCodeRecord {
  userId: string;
  tenantName: string | null;
  expiresAt: string;
}

interface IdentityRow {
  id: string;
  provider: string;
  subject: string;
  user_id: string;
  email: string;
  created_at: string;
  last_used_at: string;
}

const toIdentity = (row: IdentityRow): IdentityRecord => ({
  id: row.id, provider: row.provider, subject: row.subject, userId: row.user_id, email: row.email, createdAt: row.created_at, lastUsedAt: row.last_used_at,
});

const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export class Identities {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  find(provider: string, subject: string): IdentityRecord | undefined {
    const row = this.sql.get(`SELECT * FROM identities WHERE provider = ? AND subject = ?`).get(provider, subject) as IdentityRow | undefined;
    return row && toIdentity(row);
  }

  listForUser(userId: string): IdentityRecord[] {
    return (this.sql.get(`SELECT * FROM identities WHERE user_id = ? ORDER BY created_at, id`).all(userId) as IdentityRow[]).map(toIdentity);
  }

  count(): number {
    return (this.sql.get(`SELECT count(*) AS n FROM identities`).get() as { n: number }).n;
  }

  /** Links the provider's account to the user; a concurrent link of the same account keeps the first. */
  link(input: { provider: string; subject: string; userId: string; email: string; now: string }): IdentityRecord {
    const row: IdentityRow = { id: randomUUID(), provider: input.provider, subject: input.subject, user_id: input.userId, email: input.email, created_at: input.now, last_used_at: input.now };
    this.sql
      .get(`INSERT INTO identities (id, provider, subject, user_id, email, created_at, last_used_at)
            VALUES (@id, @provider, @subject, @user_id, @email, @created_at, @last_used_at) ON CONFLICT (provider, subject) DO NOTHING`)
      .run(row);
    return this.find(input.provider, input.subject)!;
  }

  touch(id: string, email: string, now: string): void {
    this.sql.get(`UPDATE identities SET last_used_at = ?, email = ? WHERE id = ?`).run(now, email, id);
  }

  /** Removes the user's identity unless it is their last way to sign in (no password, no other identity). */
  unlink(userId: string, id: string): 'removed' | 'not-found' | 'last-way-in' {
    return this.db.transaction((): 'removed' | 'not-found' | 'last-way-in' => {
      const mine = this.listForUser(userId);
      if (!mine.some((identity) => identity.id === id)) return 'not-found';
      const user = this.sql.get(`SELECT password_hash FROM users WHERE id = ?`).get(userId) as { password_hash: string } | undefined;
      if (mine.length === 1 && (user?.password_hash ?? '') === '') return 'last-way-in';
      this.sql.get(`DELETE FROM identities WHERE id = ? AND user_id = ?`).run(id, userId);
      return 'removed';
    })();
  }

  /**
   * Records a started sign-in under the hash of its `state`; drops expired ones on the way.
   * Starting one needs no token, so at most `maxPending` may be under way at once: a flood of
   * starts is refused (429) instead of growing the table for the ten minutes states live.
   */
  saveState(state: string, record: SignInStateRecord, now: string, maxPending = MAX_PENDING_SIGN_INS): void {
    this.sql.get(`DELETE FROM sign_in_states WHERE expires_at <= ?`).run(now);
    if (this.pendingStates() >= maxPending) {
      throw new RateLimitedError(`too many sign-ins are under way (${maxPending} started in the last 10 minutes and not finished); try again in a minute`, 60);
    }
    this.sql
      .get(`INSERT INTO sign_in_states (state_hash, provider, code_verifier, nonce, redirect_uri, tenant_name, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(hashOf(state), record.provider, record.codeVerifier, record.nonce, record.redirectUri, record.tenantName, record.expiresAt);
  }

  /** Takes the sign-in `state` names (it is gone afterwards, whatever follows); undefined when unknown, used or expired. */
  consumeState(state: string, now: string): SignInStateRecord | undefined {
    const row = this.sql.get(`DELETE FROM sign_in_states WHERE state_hash = ? RETURNING *`).get(hashOf(state)) as
      | { provider: string; code_verifier: string; nonce: string | null; redirect_uri: string | null; tenant_name: string | null; expires_at: string }
      | undefined;
    if (!row || row.expires_at <= now) return undefined;
    return { provider: row.provider, codeVerifier: row.code_verifier, nonce: row.nonce, redirectUri: row.redirect_uri, tenantName: row.tenant_name, expiresAt: row.expires_at };
  }

  saveCode(code: string, record: SignInCodeRecord, now: string): void {
    this.sql.get(`DELETE FROM sign_in_codes WHERE expires_at <= ?`).run(now);
    this.sql.get(`INSERT INTO sign_in_codes (code_hash, user_id, tenant_name, expires_at) VALUES (?, ?, ?, ?)`).run(hashOf(code), record.userId, record.tenantName, record.expiresAt);
  }

  /** Takes a one-time code (gone afterwards); undefined when unknown, used or expired. */
  consumeCode(code: string, now: string): SignInCodeRecord | undefined {
    const row = this.sql.get(`DELETE FROM sign_in_codes WHERE code_hash = ? RETURNING *`).get(hashOf(code)) as
      | { user_id: string; tenant_name: string | null; expires_at: string }
      | undefined;
    if (!row || row.expires_at <= now) return undefined;
    return { userId: row.user_id, tenantName: row.tenant_name, expiresAt: row.expires_at };
  }

  pendingStates(): number {
    return (this.sql.get(`SELECT count(*) AS n FROM sign_in_states`).get() as { n: number }).n;
  }
}
