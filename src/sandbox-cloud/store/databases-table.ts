/**
 * @module The sandbox's hosted databases as stored: insert-or-find by client token, read, change
 * (version, storage, password hash, restored data), delete.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export interface DatabaseRow {
  id: string;
  client_token: string;
  name: string;
  server_id: string;
  type: 'postgresql' | 'mongodb';
  version: string;
  engine_version: string;
  storage_gb: number | null;
  username: string;
  /** The user's password as a salted hash (database-passwords.ts); the sandbox never holds the password. */
  password_hash: string;
  password_set_at_ms: number;
  /** The simulated data volume the database holds (backup-content.ts). */
  data_seed: string;
  data_bytes: number;
  last_restored_backup_id: string | null;
  busy_status: string | null;
  busy_until_ms: number;
  created_at_ms: number;
}

export class DatabasesTable {
  constructor(private readonly sql: StatementCache) {}

  /** Inserts `row` unless its client token is taken; either way returns the database holding the token. */
  insertOrFind(row: DatabaseRow): { row: DatabaseRow; created: boolean } {
    const info = this.sql
      .get(
        `INSERT INTO databases (id, client_token, name, server_id, type, version, engine_version, storage_gb,
           username, password_hash, password_set_at_ms, data_seed, data_bytes, last_restored_backup_id,
           busy_status, busy_until_ms, created_at_ms)
         VALUES (@id, @client_token, @name, @server_id, @type, @version, @engine_version, @storage_gb,
           @username, @password_hash, @password_set_at_ms, @data_seed, @data_bytes, @last_restored_backup_id,
           @busy_status, @busy_until_ms, @created_at_ms)
         ON CONFLICT(client_token) DO NOTHING`,
      )
      .run(row);
    const stored = this.findByToken(row.client_token);
    if (!stored) throw new Error(`sandbox cloud: database with client token "${row.client_token}" vanished right after insert`);
    return { row: stored, created: info.changes === 1 };
  }

  get(id: string): DatabaseRow | undefined {
    return this.sql.get('SELECT * FROM databases WHERE id = ?').get(id) as DatabaseRow | undefined;
  }

  findByToken(clientToken: string): DatabaseRow | undefined {
    return this.sql.get('SELECT * FROM databases WHERE client_token = ?').get(clientToken) as DatabaseRow | undefined;
  }

  list(): DatabaseRow[] {
    return this.sql.get('SELECT * FROM databases ORDER BY created_at_ms, id').all() as DatabaseRow[];
  }

  setVersion(id: string, version: string, engineVersion: string): DatabaseRow | undefined {
    this.sql.get('UPDATE databases SET version = ?, engine_version = ? WHERE id = ?').run(version, engineVersion, id);
    return this.get(id);
  }

  setStorage(id: string, storageGb: number): DatabaseRow | undefined {
    this.sql.get('UPDATE databases SET storage_gb = ? WHERE id = ?').run(storageGb, id);
    return this.get(id);
  }

  setPasswordHash(id: string, passwordHash: string, atMs: number): DatabaseRow | undefined {
    this.sql.get('UPDATE databases SET password_hash = ?, password_set_at_ms = ? WHERE id = ?').run(passwordHash, atMs, id);
    return this.get(id);
  }

  /** Replaces the database's data volume with a backup's. */
  restoreData(id: string, backup: { id: string; data_seed: string; data_bytes: number }): DatabaseRow | undefined {
    this.sql
      .get('UPDATE databases SET data_seed = ?, data_bytes = ?, last_restored_backup_id = ? WHERE id = ?')
      .run(backup.data_seed, backup.data_bytes, backup.id, id);
    return this.get(id);
  }

  delete(id: string): boolean {
    return this.sql.get('DELETE FROM databases WHERE id = ?').run(id).changes === 1;
  }
}
