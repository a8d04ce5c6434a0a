/**
 * @module What a sandbox database holds and what a backup of it contains. A database holds a
 * simulated data volume, named by a seed and a length: a new database's seed is its id and its
 * length grows with its storage; a restore gives the database the backup's volume. A backup is
 * a manifest (canonical JSON naming the engine and that volume, so it determines every byte of
 * the backup) followed by the volume: its size is the manifest's bytes plus the volume's length,
 * its checksum the SHA-256 of the manifest. The same data always gives the same backup.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './release-digest.js';

export const BACKUP_FORMAT = 'cairn-sandbox-backup/1';

const MIB = 1024 * 1024;

/** The data a database holds, as stored on its row. */
export interface DatabaseData {
  type: 'postgresql' | 'mongodb';
  engine_version: string;
  data_seed: string;
  data_bytes: number;
}

export interface BackupContent {
  manifest: string;
  sizeBytes: number;
  checksum: string;
}

/** A new database's volume: 8 MiB of catalogs, plus 16 MiB per GB of storage (mongodb, without storage: 24 MiB). */
export function initialDataBytes(type: 'postgresql' | 'mongodb', storageGb: number | null): number {
  return 8 * MIB + (type === 'postgresql' && storageGb !== null ? storageGb : 1) * 16 * MIB;
}

export function backupContent(data: DatabaseData): BackupContent {
  const manifest = canonicalJson({
    format: BACKUP_FORMAT,
    engine: { type: data.type, version: data.engine_version },
    volume: { seed: data.data_seed, bytes: data.data_bytes },
  });
  return {
    manifest,
    sizeBytes: Buffer.byteLength(manifest, 'utf8') + data.data_bytes,
    checksum: `sha256:${createHash('sha256').update(manifest, 'utf8').digest('hex')}`,
  };
}
