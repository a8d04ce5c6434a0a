/**
 * @module Keys that sign access tokens. The table holds public halves; each private half is a
 * secret (purpose `signing-key`, tenant `*`, name = kid), removed once the key stops signing.
 * The newest unretired key signs; a superseded key keeps verifying until `retired_at`, by
 * which time every token it signed has expired.
 */
import type { SqlConnection, SqlStatement } from './connection.js';
import { StatementCache } from './sqlite.js';
import type { EncryptedSecrets } from './secrets.js';

export const SIGNING_KEY_TENANT = '*';

export interface SigningKeyRecord {
  kid: string;
  alg: string;
  /** The public JWK as JSON text. */
  publicJwk: string;
  createdAt: string;
  /** When it stops verifying (may lie ahead); null while it is the signing key. */
  retiredAt: string | null;
}

export interface NewSigningKey {
  kid: string;
  alg: string;
  publicJwk: string;
  /** The private JWK as JSON text; stored encrypted. */
  privateJwk: string;
}

interface KeyRow {
  kid: string;
  alg: string;
  public_jwk: string;
  created_at: string;
  retired_at: string | null;
}

const toRecord = (row: KeyRow): SigningKeyRecord => ({ kid: row.kid, alg: row.alg, publicJwk: row.public_jwk, createdAt: row.created_at, retiredAt: row.retired_at });

export class SigningKeys {
  private readonly sql: StatementCache;
  private readonly byKid: SqlStatement;
  private readonly activeKey: SqlStatement;

  constructor(
    private readonly db: SqlConnection,
    private readonly secrets: EncryptedSecrets,
  ) {
    this.sql = new StatementCache(db);
    this.byKid = db.prepare(`SELECT kid, alg, public_jwk, created_at, retired_at FROM signing_keys WHERE kid = ?`);
    this.activeKey = db.prepare(`SELECT kid, alg, public_jwk, created_at, retired_at FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1`);
  }

  /**
   * Makes `key` the signing key. Every other unretired key is retired at `retireOthersAt` and
   * its private half deleted (it will only verify from now on). All in one transaction.
   */
  add(key: NewSigningKey, now: string, retireOthersAt: string): void {
    this.db
      .transaction((): void => {
        const superseded = this.sql.get(`SELECT kid FROM signing_keys WHERE retired_at IS NULL`).all() as Array<{ kid: string }>;
        this.secrets.put(SIGNING_KEY_TENANT, 'signing-key', key.kid, key.privateJwk);
        this.sql.get(`INSERT INTO signing_keys (kid, alg, public_jwk, created_at) VALUES (?, ?, ?, ?)`).run(key.kid, key.alg, key.publicJwk, now);
        for (const { kid } of superseded) {
          this.sql.get(`UPDATE signing_keys SET retired_at = ? WHERE kid = ?`).run(retireOthersAt, kid);
          this.secrets.delete(SIGNING_KEY_TENANT, 'signing-key', kid);
        }
      })
      .immediate();
  }

  /** Adds `key` as the signing key unless there is one already; true when added. */
  addFirst(key: NewSigningKey, now: string): boolean {
    return this.db
      .transaction((): boolean => {
        if (this.activeKey.get() !== undefined) return false;
        this.add(key, now, now);
        return true;
      })
      .immediate();
  }

  /** The key that signs now, if any. */
  active(): SigningKeyRecord | undefined {
    const row = this.activeKey.get() as KeyRow | undefined;
    return row && toRecord(row);
  }

  get(kid: string): SigningKeyRecord | undefined {
    const row = this.byKid.get(kid) as KeyRow | undefined;
    return row && toRecord(row);
  }

  /** Keys that verify at `now` (unretired, or retiring later), newest first. */
  verifying(now: string): SigningKeyRecord[] {
    const rows = this.sql
      .get(`SELECT kid, alg, public_jwk, created_at, retired_at FROM signing_keys WHERE retired_at IS NULL OR retired_at > ? ORDER BY retired_at IS NULL DESC, retired_at DESC, created_at DESC, kid DESC`)
      .all(now) as KeyRow[];
    return rows.map(toRecord);
  }

  /** The private JWK (JSON text) of a key that still signs. */
  privateJwk(kid: string): string | undefined {
    return this.secrets.get(SIGNING_KEY_TENANT, 'signing-key', kid);
  }
}
