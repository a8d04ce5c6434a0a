/**
 * @module Idempotency keys: a request claims its key before it runs; its response is then
 * kept for 24 hours so that a retry with the same key and body gets the same answer.
 */
import type { SqlConnection } from './connection.js';
import { StatementCache } from './sqlite.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface KeptResponse {
  status: number;
  contentType: string | null;
  location: string | null;
  etag: string | null;
  body: string;
}

export interface KeyOwner {
  tenant: string;
  principal: string;
  key: string;
}

export type KeyClaim =
  | { state: 'claimed' }
  | { state: 'replay'; response: KeptResponse }
  | { state: 'in_progress' }
  | { state: 'mismatch' };

interface KeyRow {
  fingerprint: string;
  status: number | null;
  content_type: string | null;
  location: string | null;
  etag: string | null;
  body: string | null;
}

export class IdempotencyKeys {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection, private readonly now: () => number = Date.now) {
    this.sql = new StatementCache(db);
  }

  /** Claims `owner`'s key for a request with this fingerprint, or says why it can't run. */
  claim(owner: KeyOwner, fingerprint: string): KeyClaim {
    return this.db
      .transaction((): KeyClaim => {
        const now = this.now();
        this.sql.get(`DELETE FROM idempotency_keys WHERE created_at < ?`).run(now - IDEMPOTENCY_TTL_MS);
        const row = this.sql
          .get(`SELECT fingerprint, status, content_type, location, etag, body FROM idempotency_keys WHERE tenant = @tenant AND principal = @principal AND key = @key`)
          .get(owner) as KeyRow | undefined;
        if (!row) {
          this.sql
            .get(`INSERT INTO idempotency_keys (tenant, principal, key, fingerprint, created_at) VALUES (@tenant, @principal, @key, @fingerprint, @now)`)
            .run({ ...owner, fingerprint, now });
          return { state: 'claimed' };
        }
        if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
        if (row.status === null || row.body === null) return { state: 'in_progress' };
        return {
          state: 'replay',
          response: { status: row.status, contentType: row.content_type, location: row.location, etag: row.etag, body: row.body },
        };
      })
      .immediate();
  }

  /** Keeps the response of the request that claimed the key. */
  complete(owner: KeyOwner, response: KeptResponse): void {
    this.sql
      .get(
        `UPDATE idempotency_keys SET status = @status, content_type = @contentType, location = @location, etag = @etag, body = @body
         WHERE tenant = @tenant AND principal = @principal AND key = @key`,
      )
      .run({ ...owner, ...response });
  }

  /** Frees the key (the request failed on the server's side; a retry may run it again). */
  release(owner: KeyOwner): void {
    this.sql.get(`DELETE FROM idempotency_keys WHERE tenant = @tenant AND principal = @principal AND key = @key AND status IS NULL`).run(owner);
  }
}
