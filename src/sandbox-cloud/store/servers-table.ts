/**
 * @module The sandbox's servers as stored: insert-or-find by client token, read, change, delete.
 */
import type { StatementCache } from '../../store/statement-cache.js';

export interface ServerRow {
  id: string;
  client_token: string;
  name: string;
  region: string;
  size: string;
  image: string;
  power: 'running' | 'stopped';
  busy_status: string | null;
  busy_until_ms: number;
  created_at_ms: number;
}

export type ServerChange = Partial<Pick<ServerRow, 'size' | 'power' | 'busy_status' | 'busy_until_ms'>>;

export class ServersTable {
  constructor(private readonly sql: StatementCache) {}

  /** Inserts `row` unless its client token is taken; either way returns the server holding the token. */
  insertOrFind(row: ServerRow): { row: ServerRow; created: boolean } {
    const info = this.sql
      .get(
        `INSERT INTO servers (id, client_token, name, region, size, image, power, busy_status, busy_until_ms, created_at_ms)
         VALUES (@id, @client_token, @name, @region, @size, @image, @power, @busy_status, @busy_until_ms, @created_at_ms)
         ON CONFLICT(client_token) DO NOTHING`,
      )
      .run(row);
    const stored = this.findByToken(row.client_token);
    if (!stored) throw new Error(`sandbox cloud: server with client token "${row.client_token}" vanished right after insert`);
    return { row: stored, created: info.changes === 1 };
  }

  get(id: string): ServerRow | undefined {
    return this.sql.get('SELECT * FROM servers WHERE id = ?').get(id) as ServerRow | undefined;
  }

  findByToken(clientToken: string): ServerRow | undefined {
    return this.sql.get('SELECT * FROM servers WHERE client_token = ?').get(clientToken) as ServerRow | undefined;
  }

  list(): ServerRow[] {
    return this.sql.get('SELECT * FROM servers ORDER BY created_at_ms, id').all() as ServerRow[];
  }

  /** Applies `change` and returns the server as it is now, or undefined when it does not exist. */
  update(id: string, change: ServerChange): ServerRow | undefined {
    const fields = Object.entries(change).filter(([, v]) => v !== undefined);
    if (fields.length > 0) {
      const assignments = fields.map(([k]) => `${k} = @${k}`).join(', ');
      this.sql.get(`UPDATE servers SET ${assignments} WHERE id = @id`).run({ ...Object.fromEntries(fields), id });
    }
    return this.get(id);
  }

  /** True when a server was deleted. */
  delete(id: string): boolean {
    return this.sql.get('DELETE FROM servers WHERE id = ?').run(id).changes === 1;
  }

  /** What still runs on a server. */
  dependents(id: string): { databases: number; apps: number } {
    const databases = this.sql.get('SELECT count(*) AS n FROM databases WHERE server_id = ?').get(id) as { n: number };
    const apps = this.sql.get('SELECT count(*) AS n FROM apps WHERE server_id = ?').get(id) as { n: number };
    return { databases: databases.n, apps: apps.n };
  }
}
