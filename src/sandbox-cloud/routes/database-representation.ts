/**
 * @module A sandbox database as the API shows it, the engine versions the sandbox offers, and
 * the connection details a client gets (host is the hosting server's address; never a password:
 * the sandbox keeps only its hash). Its status is its own transition, else the backup or restore
 * running on it, else `available`.
 */
import { simulatedIpv4 } from '../addresses.js';
import { notFound } from '../api-error.js';
import type { DatabaseActivity } from '../store/database-activity.js';
import type { DatabaseRow } from '../store/databases-table.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { statusAt } from '../transitions.js';

export type DatabaseType = 'postgresql' | 'mongodb';

export const DATABASE_TYPES: readonly DatabaseType[] = ['postgresql', 'mongodb'];

/** Major version → the engine version the sandbox pretends to run. */
export const ENGINE_VERSIONS: Record<DatabaseType, Record<string, string>> = {
  postgresql: { '13': '13.16', '14': '14.13', '15': '15.8', '16': '16.4', '17': '17.2' },
  mongodb: { '5': '5.0.29', '6': '6.0.18', '7': '7.0.14', '8': '8.0.3' },
};

export const DEFAULT_PORTS: Record<DatabaseType, number> = { postgresql: 5432, mongodb: 27017 };

/** The engine version for a requested version ("16", "7" or "7.0"), or undefined when not offered. */
export function engineVersionFor(type: DatabaseType, version: string): string | undefined {
  const major = type === 'mongodb' ? version.replace(/\.0$/, '') : version;
  return ENGINE_VERSIONS[type][major];
}

/** A user name derived from the database name: lower-case letters, digits and underscores. */
export function userNameFor(name: string): string {
  const cleaned = name.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 48);
  return /^[a-z]/.test(cleaned) ? cleaned : `u_${cleaned}`;
}

export interface DatabaseBody {
  id: string;
  name: string;
  client_token: string;
  server_id: string;
  type: DatabaseType;
  version: string;
  engine_version: string;
  storage_gb: number | null;
  status: string;
  host: string;
  port: number;
  created_at: string;
  password_set_at: string;
  /** The backup most recently restored into this database (the restore may still be running), or null. */
  last_restored_backup_id: string | null;
  connection: { host: string; port: number; user: string; database: string; uri: string };
}

export function databaseBody(row: DatabaseRow, nowMs: number, activity: DatabaseActivity | null): DatabaseBody {
  const host = simulatedIpv4(row.server_id);
  const port = DEFAULT_PORTS[row.type];
  const scheme = row.type === 'postgresql' ? 'postgresql' : 'mongodb';
  return {
    id: row.id,
    name: row.name,
    client_token: row.client_token,
    server_id: row.server_id,
    type: row.type,
    version: row.version,
    engine_version: row.engine_version,
    storage_gb: row.storage_gb,
    status: statusAt(row, activity ?? 'available', nowMs),
    host,
    port,
    created_at: new Date(row.created_at_ms).toISOString(),
    password_set_at: new Date(row.password_set_at_ms).toISOString(),
    last_restored_backup_id: row.last_restored_backup_id,
    connection: {
      host, port, user: row.username, database: row.name,
      uri: `${scheme}://${encodeURIComponent(row.username)}@${host}:${port}/${encodeURIComponent(row.name)}`,
    },
  };
}

/** The database as a client sees it at `nowMs`, with whatever backup or restore is running on it. */
export function showDatabase(store: SandboxStore, row: DatabaseRow, nowMs: number): DatabaseBody {
  return databaseBody(row, nowMs, store.activities.at(row.id, nowMs));
}

/** The database with this id, or the vendor's 404. */
export function existingDatabase(store: SandboxStore, id: string): DatabaseRow {
  const row = store.databases.get(id);
  if (!row) throw notFound('database', id);
  return row;
}
