/**
 * @module Secrets at rest: the `secrets` table holds only envelope ciphertext, bound to its
 * tenant, purpose and name. The keyring is loaded on first use of a secret (so commands that
 * never touch one never create a key file) and reloaded when another process has rotated it.
 */
import type { SqlConnection } from './connection.js';
import { openSecret, sealSecret, SecretIntegrityError, UnknownMasterKeyError, unwrapDataKey, wrapDataKey, type Keyring, type MasterKey } from '../secrets/envelope.js';
import { describeKeyring, type LoadedKeyring, type MasterKeyDescription } from '../secrets/keyring.js';
import { MasterKeyError } from '../secrets/master-key.js';
import type { DataKeyWrapper, WrappedDataKey } from '../secrets/sealed-stream.js';
import type { SecretPurpose, SecretStore } from '../secrets/secret-store.js';
import { nowIso, StatementCache } from './sqlite.js';

export interface SecretRow {
  tenant: string;
  purpose: SecretPurpose;
  name: string;
  key_id: string;
  ciphertext: string;
}

/** What binds a ciphertext to its row: moving it to another row makes it fail to open. */
export function secretAad(tenant: string, purpose: string, name: string): string {
  return JSON.stringify(['cairn-secret', tenant, purpose, name]);
}

export class EncryptedSecrets implements SecretStore, DataKeyWrapper {
  private readonly sql: StatementCache;
  private loaded: LoadedKeyring | undefined;

  constructor(
    private readonly db: SqlConnection,
    private readonly loadKeyring: () => LoadedKeyring,
  ) {
    this.sql = new StatementCache(db);
  }

  put(tenant: string, purpose: SecretPurpose, name: string, value: string): void {
    this.db
      .transaction((): void => {
        const key = this.sealingKey();
        const now = nowIso();
        this.sql
          .get(
            `INSERT INTO secrets (tenant, purpose, name, key_id, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (tenant, purpose, name) DO UPDATE SET key_id = excluded.key_id, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
          )
          .run(tenant, purpose, name, key.id, sealSecret(key, value, secretAad(tenant, purpose, name)), now, now);
      })
      .immediate();
  }

  putIfAbsent(tenant: string, purpose: SecretPurpose, name: string, value: string): boolean {
    return this.db
      .transaction((): boolean => {
        const key = this.sealingKey();
        const now = nowIso();
        const { changes } = this.sql
          .get(
            `INSERT INTO secrets (tenant, purpose, name, key_id, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (tenant, purpose, name) DO NOTHING`,
          )
          .run(tenant, purpose, name, key.id, sealSecret(key, value, secretAad(tenant, purpose, name)), now, now);
        return changes === 1;
      })
      .immediate();
  }

  get(tenant: string, purpose: SecretPurpose, name: string): string | undefined {
    const row = this.sql.get(`SELECT ciphertext FROM secrets WHERE tenant = ? AND purpose = ? AND name = ?`).get(tenant, purpose, name) as
      | { ciphertext: string }
      | undefined;
    if (!row) return undefined;
    const aad = secretAad(tenant, purpose, name);
    try {
      try {
        return openSecret(this.keyring(), row.ciphertext, aad);
      } catch (error) {
        if (!(error instanceof UnknownMasterKeyError)) throw error;
        // Another process may have rotated the key since we loaded it.
        return openSecret(this.reload().keyring, row.ciphertext, aad);
      }
    } catch (error) {
      if (error instanceof SecretIntegrityError) throw new SecretIntegrityError(`secret ${purpose}/${name} of tenant ${tenant}: ${error.message}`);
      throw error;
    }
  }

  delete(tenant: string, purpose: SecretPurpose, name: string): void {
    this.sql.get(`DELETE FROM secrets WHERE tenant = ? AND purpose = ? AND name = ?`).run(tenant, purpose, name);
  }

  /** Wraps the data key of a sealed file (a backup) under the active master key, as `put` would seal. */
  wrapDataKey(dataKey: Buffer): WrappedDataKey {
    const key = this.db.transaction(() => this.sealingKey()).immediate();
    return { keyId: key.id, wrapped: Buffer.from(wrapDataKey(key, dataKey), 'base64url') };
  }

  /** Unwraps the data key of a sealed file, reloading the keyring once if another process rotated it. */
  unwrapDataKey({ keyId, wrapped }: WrappedDataKey): Buffer {
    try {
      return unwrapDataKey(this.keyring(), keyId, wrapped);
    } catch (error) {
      if (!(error instanceof UnknownMasterKeyError)) throw error;
      return unwrapDataKey(this.reload().keyring, keyId, wrapped);
    }
  }

  /** How many secrets are stored (all tenants). */
  count(): number {
    return (this.sql.get(`SELECT count(*) AS n FROM secrets`).get() as { n: number }).n;
  }

  /** Where the master key comes from; loads it (generating the key file) when not yet loaded. */
  describeMasterKey(): MasterKeyDescription {
    return describeKeyring(this.current());
  }

  /** Every row, for re-encryption. Call inside a write transaction. */
  allRows(): SecretRow[] {
    return this.sql.get(`SELECT tenant, purpose, name, key_id, ciphertext FROM secrets`).all() as SecretRow[];
  }

  /** Replaces a row's ciphertext (re-encryption). Call inside a write transaction. */
  replaceCiphertext(row: SecretRow, keyId: string, ciphertext: string): void {
    this.sql
      .get(`UPDATE secrets SET key_id = ?, ciphertext = ? WHERE tenant = ? AND purpose = ? AND name = ?`)
      .run(keyId, ciphertext, row.tenant, row.purpose, row.name);
  }

  /** The ids of the master keys some row is sealed under. */
  keyIdsInUse(): Set<string> {
    return new Set((this.sql.get(`SELECT DISTINCT key_id FROM secrets`).all() as Array<{ key_id: string }>).map((r) => r.key_id));
  }

  /** The active master key recorded by the last rotation or seal. */
  recordedActiveKeyId(): string | undefined {
    return (this.sql.get(`SELECT active_key_id FROM master_key_state WHERE singleton = 1`).get() as { active_key_id: string } | undefined)?.active_key_id;
  }

  recordActiveKeyId(keyId: string): void {
    this.sql
      .get(
        `INSERT INTO master_key_state (singleton, active_key_id, updated_at) VALUES (1, ?, ?)
         ON CONFLICT (singleton) DO UPDATE SET active_key_id = excluded.active_key_id, updated_at = excluded.updated_at`,
      )
      .run(keyId, nowIso());
  }

  /** Loads the keyring afresh from its source (after a rotation). */
  reload(): LoadedKeyring {
    this.loaded = this.loadKeyring();
    return this.loaded;
  }

  private current(): LoadedKeyring {
    return this.loaded ?? this.reload();
  }

  private keyring(): Keyring {
    return this.current().keyring;
  }

  /**
   * The key to seal with, inside a write transaction. When the data dir's recorded active key is
   * one this process has never seen, the keyring was rotated elsewhere: reload it, and refuse
   * rather than seal under a key the rotation has dropped.
   */
  private sealingKey(): MasterKey {
    const recorded = this.recordedActiveKeyId();
    let loaded = this.current();
    if (recorded !== undefined && !loaded.keyring.keys.some((k) => k.id === recorded)) loaded = this.reload();
    const active = loaded.keyring.active;
    if (recorded !== undefined && !loaded.keyring.keys.some((k) => k.id === recorded)) {
      throw new MasterKeyError(
        `the secrets in this data dir were re-encrypted under master key ${recorded}, which this process does not have ` +
          `(its active key is ${active.id}, from ${loaded.source === 'env' ? 'CAIRN_MASTER_KEY' : loaded.path}); ` +
          'give it the same CAIRN_MASTER_KEY as the process that ran `cairn keys rotate`',
      );
    }
    if (recorded !== active.id) this.recordActiveKeyId(active.id);
    return active;
  }
}
