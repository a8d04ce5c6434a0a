/**
 * @module Where the store's state lives, by the `CAIRN_STORE` setting (`--store`): `sqlite` (the
 * default: a file in the data dir) or a `postgres://` URL, which several cairn processes on
 * several machines can share.
 */
import { mkdirSync } from 'node:fs';
import type { SqlConnection } from './connection.js';
import { migrate } from './migrate.js';
import { PgConnection } from './pg/pg-connection.js';
import { SyncPgClient } from './pg/sync-client.js';
import { openSqlite } from './sqlite.js';

export type StoreEngine = 'sqlite' | 'postgres';

export interface StateDatabase {
  connection: SqlConnection;
  engine: StoreEngine;
}

/** The engine a setting names, or an error that says what is accepted (a URL's password is never repeated). */
export function storeEngineOf(setting: string | undefined): StoreEngine {
  const value = (setting ?? '').trim();
  if (value === '' || value === 'sqlite') return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(value)) return 'postgres';
  throw new Error(`CAIRN_STORE (--store) must be 'sqlite' or a postgres:// URL, not '${redactUrl(value)}'`);
}

export function openStateDatabase(dataDir: string, setting: string | undefined): StateDatabase {
  if (storeEngineOf(setting) === 'sqlite') return { connection: openSqlite(dataDir), engine: 'sqlite' };
  // The data dir still holds what is this machine's: the master key file, sealed backups, TLS, the local vendor's clusters.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const url = (setting ?? '').trim();
  let client: SyncPgClient;
  try {
    client = new SyncPgClient(url);
  } catch (error) {
    throw new Error(`cannot reach the PostgreSQL store at ${redactUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  const connection = new PgConnection(client);
  try {
    migrate(connection);
  } catch (error) {
    connection.close();
    throw error;
  }
  return { connection, engine: 'postgres' };
}

/** The URL with its password replaced by `***`. */
export function redactUrl(value: string): string {
  return value.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
