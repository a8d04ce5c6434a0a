/**
 * @module The sandbox's database backups as stored: insert-or-find by client token, read, list
 * (all, by token, by database), delete. A backup keeps the data it copied, so it outlives its database.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export interface BackupRow {
  id: string;
  client_token: string;
  database_id: string;
  database_type: 'postgresql' | 'mongodb';
  /** The data volume copied from the database when the backup was asked for. */
  data_seed: string;
  data_bytes: number;
  manifest: string;
  size_bytes: number;
  checksum: string;
  created_at_ms: number;
  /** Queued behind what the database was already doing: pending until then, running until completed_at_ms. */
  started_at_ms: number;
  completed_at_ms: number;
}

export class BackupsTable {
  constructor(private readonly sql: StatementCache) {}

  /** Inserts `row` unless its client token is taken; either way returns the backup holding the token. */
  insertOrFind(row: BackupRow): { row: BackupRow; created: boolean } {
    const info = this.sql
      .get(
        `INSERT INTO backups (id, client_token, database_id, database_type, data_seed, data_bytes, manifest, size_bytes,
           checksum, created_at_ms, started_at_ms, completed_at_ms)
         VALUES (@id, @client_token, @database_id, @database_type, @data_seed, @data_bytes, @manifest, @size_bytes,
           @checksum, @created_at_ms, @started_at_ms, @completed_at_ms)
         ON CONFLICT(client_token) DO NOTHING`,
      )
      .run(row);
    const stored = this.findByToken(row.client_token);
    if (!stored) throw new Error(`sandbox cloud: backup with client token "${row.client_token}" vanished right after insert`);
    return { row: stored, created: info.changes === 1 };
  }

  get(id: string): BackupRow | undefined {
    return this.sql.get('SELECT * FROM backups WHERE id = ?').get(id) as BackupRow | undefined;
  }

  findByToken(clientToken: string): BackupRow | undefined {
    return this.sql.get('SELECT * FROM backups WHERE client_token = ?').get(clientToken) as BackupRow | undefined;
  }

  /** All backups, or only those of one database, oldest first. */
  list(databaseId?: string): BackupRow[] {
    if (databaseId === undefined) return this.sql.get('SELECT * FROM backups ORDER BY created_at_ms, id').all() as BackupRow[];
    return this.sql.get('SELECT * FROM backups WHERE database_id = ? ORDER BY created_at_ms, id').all(databaseId) as BackupRow[];
  }

  delete(id: string): boolean {
    return this.sql.get('DELETE FROM backups WHERE id = ?').run(id).changes === 1;
  }
}
