/**
 * @module A database's connection string in the shapes users paste into clients:
 * `postgresql://user:pass@host:port/name` and `mongodb://user:pass@host:port/name`. Used for the
 * URLs injected into apps (DATABASE_URL, <NAME>_URL) and by the API's credentials endpoint.
 */

export type DatabaseType = 'postgresql' | 'mongodb';

/** Where a database is and whom to connect as (a driver's `DatabaseEndpoint` has this shape). */
export interface ConnectionEndpoint {
  host: string;
  port: number;
  username: string;
  database: string;
}

/**
 * The URL to connect to `endpoint` with `password`. The user, password and database name are
 * percent-encoded, so any character in them survives; an IPv6 host is put in brackets.
 */
export function connectionString(type: DatabaseType, endpoint: ConnectionEndpoint, password: string): string {
  const host = endpoint.host.includes(':') && !endpoint.host.startsWith('[') ? `[${endpoint.host}]` : endpoint.host;
  const credentials = `${encodeURIComponent(endpoint.username)}:${encodeURIComponent(password)}`;
  return `${type}://${credentials}@${host}:${endpoint.port}/${encodeURIComponent(endpoint.database)}`;
}
