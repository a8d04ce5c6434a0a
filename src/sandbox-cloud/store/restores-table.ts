/**
 * @module The sandbox's restores as stored, one per client token, so that a repeated restore
 * request finds the first one instead of restoring again.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export interface RestoreRow {
  id: string;
  client_token: string;
  database_id: string;
  backup_id: string;
  created_at_ms: number;
  started_at_ms: number;
  completed_at_ms: number;
}

export class RestoresTable {
  constructor(private readonly sql: StatementCache) {}

  /** Inserts `row`; the caller has checked in the same transaction that its token is free. */
  insert(row: RestoreRow): RestoreRow {
    this.sql
      .get(
        `INSERT INTO restores (id, client_token, database_id, backup_id, created_at_ms, started_at_ms, completed_at_ms)
         VALUES (@id, @client_token, @database_id, @backup_id, @created_at_ms, @started_at_ms, @completed_at_ms)`,
      )
      .run(row);
    return row;
  }

  findByToken(clientToken: string): RestoreRow | undefined {
    return this.sql.get('SELECT * FROM restores WHERE client_token = ?').get(clientToken) as RestoreRow | undefined;
  }

  /** Restores into one database, oldest first. */
  list(databaseId: string): RestoreRow[] {
    return this.sql.get('SELECT * FROM restores WHERE database_id = ? ORDER BY created_at_ms, id').all(databaseId) as RestoreRow[];
  }
}
