/**
 * @module Re-encrypting every secret under a new master key. With the key file: the new key is
 * written to the file (active, old keys kept) before any row changes, every row is re-wrapped in
 * one transaction, the data keys of sealed backup files are re-wrapped in their headers (checked
 * to open before anything changes), and only then are keys no row and no file uses dropped. A crash at any
 * point leaves every value readable. With CAIRN_MASTER_KEY: rows move to its first key and the
 * operator is told which keys may go. The whole rotation holds the database's write lock, so two
 * rotations never interleave.
 */
import type { SqlConnection } from './connection.js';
import { rewrapSecret, type MasterKey } from '../secrets/envelope.js';
import { readKeyringFile, writeKeyringFile } from '../secrets/keyring-file.js';
import type { LoadedKeyring } from '../secrets/keyring.js';
import { generateMasterKey } from '../secrets/master-key.js';
import type { SealedFileDirectory } from '../secrets/sealed-files.js';
import { SecretsError } from '../secrets/secrets-error.js';
import { secretAad, type EncryptedSecrets } from './secrets.js';

export interface MasterKeyRotation {
  source: 'env' | 'file';
  /** The key every secret is now sealed under. */
  activeKeyId: string;
  /** How many secrets were re-encrypted. */
  reencrypted: number;
  /** How many sealed backup files had their data key re-wrapped. */
  rewrappedBackups: number;
  /** Keys removed from the key file (source `file`). */
  droppedKeyIds: string[];
  /** Keys no secret needs any more that the operator may remove (source `env`). */
  removableKeyIds: string[];
  /** The key file, if there is one. */
  path?: string;
}

/** Points a test can stop at to act out a crash. */
export type RotationStep = 'keyring-written' | 'secrets-reencrypted';

export interface RotationOptions {
  /** Called after each durable step; throwing aborts the rotation there, as a crash would. */
  afterStep?: (step: RotationStep) => void;
}

export function rotateMasterKey(
  db: SqlConnection,
  secrets: EncryptedSecrets,
  load: () => LoadedKeyring,
  sealedFiles: SealedFileDirectory,
  options: RotationOptions = {},
): MasterKeyRotation {
  const rotated = db
    .transaction((): { loaded: LoadedKeyring; next: MasterKey; reencrypted: number; rewrappedBackups: number } => {
      const loaded = load();
      // A backup whose data key does not open stops the rotation before anything changes.
      sealedFiles.checkOpen(loaded.keyring);
      let next = loaded.keyring.active;
      if (loaded.source !== 'env') {
        next = generateMasterKey();
        writeKeyringFile(loaded.path, [next, ...loaded.fileKeys]);
        options.afterStep?.('keyring-written');
      }
      const keyring = { active: next, keys: [next, ...loaded.keyring.keys] };
      let reencrypted = 0;
      for (const row of secrets.allRows()) {
        if (row.key_id === next.id) continue;
        const aad = secretAad(row.tenant, row.purpose, row.name);
        let ciphertext: string;
        try {
          ciphertext = rewrapSecret(keyring, row.ciphertext, aad, next);
        } catch (error) {
          throw new SecretsError(`cannot re-encrypt secret ${row.purpose}/${row.name} of tenant ${row.tenant}; nothing was changed: ${(error as Error).message}`, {
            cause: error,
          });
        }
        secrets.replaceCiphertext(row, next.id, ciphertext);
        reencrypted++;
      }
      // Files cannot roll back with the transaction; that is safe, as `next` is already kept.
      const rewrappedBackups = sealedFiles.rewrap(keyring, next);
      secrets.recordActiveKeyId(next.id);
      return { loaded, next, reencrypted, rewrappedBackups };
    })
    .immediate();
  options.afterStep?.('secrets-reencrypted');
  const { loaded, next, reencrypted, rewrappedBackups } = rotated;
  if (loaded.source === 'env') {
    secrets.reload();
    const inUse = keyIdsInUse(secrets, sealedFiles);
    return {
      source: 'env',
      activeKeyId: next.id,
      reencrypted,
      rewrappedBackups,
      droppedKeyIds: [],
      removableKeyIds: loaded.keyring.keys.filter((k) => k.id !== next.id && !inUse.has(k.id)).map((k) => k.id),
      ...(loaded.fileKeys.length > 0 ? { path: loaded.path } : {}),
    };
  }
  const droppedKeyIds = dropUnusedFileKeys(db, secrets, sealedFiles, loaded.path);
  secrets.reload();
  return { source: 'file', activeKeyId: next.id, reencrypted, rewrappedBackups, droppedKeyIds, removableKeyIds: [], path: loaded.path };
}

/** The master keys some secret or some sealed file (a backup still being written, say) uses. */
function keyIdsInUse(secrets: EncryptedSecrets, sealedFiles: SealedFileDirectory): Set<string> {
  return new Set([...secrets.keyIdsInUse(), ...sealedFiles.keyIdsInUse()]);
}

/** Rewrites the key file with its active key and any key a row or file still uses; returns the ids dropped. */
function dropUnusedFileKeys(db: SqlConnection, secrets: EncryptedSecrets, sealedFiles: SealedFileDirectory, path: string): string[] {
  return db
    .transaction((): string[] => {
      const keys = readKeyringFile(path) ?? [];
      const inUse = keyIdsInUse(secrets, sealedFiles);
      const keep = keys.filter((k, index) => index === 0 || inUse.has(k.id));
      if (keep.length === keys.length) return [];
      writeKeyringFile(path, keep);
      return keys.filter((k) => !keep.includes(k)).map((k) => k.id);
    })
    .immediate();
}
