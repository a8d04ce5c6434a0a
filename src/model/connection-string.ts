/**
 * @module A database's connection string in the shapes users paste into clients:
 * `postgresql://user:pass@host:port/name` and `mongodb://user:pass@host:port/name` (or
 * `mongodb+srv://user:pass@host/name` for a host that is a DNS SRV name). Used for the
 * URLs injected into apps (DATABASE_URL, <NAME>_URL) and by the API's credentials endpoint.
 */

export type DatabaseType = 'postgresql' | 'mongodb';

/** Where a database is and whom to connect as (a driver's `DatabaseEndpoint` has this shape). */
export interface ConnectionEndpoint {
  host: string;
  port: number;
  username: string;
  database: string;
  /**
   * The host is a DNS SRV name (a MongoDB Atlas cluster's): the string is
   * `mongodb+srv://user:pass@host/name`, the members, their port and TLS found through DNS.
   */
  srv?: boolean;
}

/**
 * The URL to connect to `endpoint` with `password`. The user, password and database name are
 * percent-encoded, so any character in them survives; an IPv6 host is put in brackets.
 */
export function connectionString(type: DatabaseType, endpoint: ConnectionEndpoint, password: string): string {
  const host = endpoint.host.includes(':') && !endpoint.host.startsWith('[') ? `[${endpoint.host}]` : endpoint.host;
  const credentials = `${encodeURIComponent(endpoint.username)}:${encodeURIComponent(password)}`;
  if (endpoint.srv === true && type === 'mongodb') return `mongodb+srv://${credentials}@${host}/${encodeURIComponent(endpoint.database)}`;
  return `${type}://${credentials}@${host}:${endpoint.port}/${encodeURIComponent(endpoint.database)}`;
}
