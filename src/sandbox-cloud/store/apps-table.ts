/**
 * @module The sandbox's hosted apps as stored: insert-or-find by client token, read, redeploy, delete.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export interface AppRow {
  id: string;
  client_token: string;
  name: string;
  server_id: string;
  /** The deploy-relevant configuration (AppReleaseConfig) as JSON. */
  config_json: string;
  state: 'running' | 'stopped';
  release: number;
  release_digest: string;
  busy_status: string | null;
  busy_until_ms: number;
  created_at_ms: number;
  updated_at_ms: number;
}

export type AppChange = Pick<AppRow, 'config_json' | 'state' | 'release' | 'release_digest' | 'busy_status' | 'busy_until_ms' | 'updated_at_ms'>;

export class AppsTable {
  constructor(private readonly sql: StatementCache) {}

  /** Inserts `row` unless its client token is taken; either way returns the app holding the token. */
  insertOrFind(row: AppRow): { row: AppRow; created: boolean } {
    const info = this.sql
      .get(
        `INSERT INTO apps (id, client_token, name, server_id, config_json, state, release, release_digest,
           busy_status, busy_until_ms, created_at_ms, updated_at_ms)
         VALUES (@id, @client_token, @name, @server_id, @config_json, @state, @release, @release_digest,
           @busy_status, @busy_until_ms, @created_at_ms, @updated_at_ms)
         ON CONFLICT(client_token) DO NOTHING`,
      )
      .run(row);
    const stored = this.findByToken(row.client_token);
    if (!stored) throw new Error(`sandbox cloud: app with client token "${row.client_token}" vanished right after insert`);
    return { row: stored, created: info.changes === 1 };
  }

  get(id: string): AppRow | undefined {
    return this.sql.get('SELECT * FROM apps WHERE id = ?').get(id) as AppRow | undefined;
  }

  findByToken(clientToken: string): AppRow | undefined {
    return this.sql.get('SELECT * FROM apps WHERE client_token = ?').get(clientToken) as AppRow | undefined;
  }

  list(): AppRow[] {
    return this.sql.get('SELECT * FROM apps ORDER BY created_at_ms, id').all() as AppRow[];
  }

  update(id: string, change: AppChange): AppRow | undefined {
    this.sql
      .get(
        `UPDATE apps SET config_json = @config_json, state = @state, release = @release, release_digest = @release_digest,
           busy_status = @busy_status, busy_until_ms = @busy_until_ms, updated_at_ms = @updated_at_ms WHERE id = @id`,
      )
      .run({ ...change, id });
    return this.get(id);
  }

  delete(id: string): boolean {
    return this.sql.get('DELETE FROM apps WHERE id = ?').run(id).changes === 1;
  }
}
