/**
 * @module Which engine the store runs on in this test project: the `postgres` project provides
 * its server's URL (postgres-store-global.ts) and gives every data dir a database of its own,
 * the default one runs on SQLite. Tests about SQLite's own file (its WAL, a second connection to
 * it) run only where that file exists; tests about what is stored at rest read it from either.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { inject, it } from 'vitest';
import { toPostgres } from '../../src/store/pg/dialect.js';
import type { PostgresAdminUrl } from './provided-context.js';
import { SyncPgClient } from '../../src/store/pg/sync-client.js';

const adminUrl: PostgresAdminUrl | undefined = inject('postgresAdminUrl');

export const storeEngineUnderTest: 'sqlite' | 'postgres' = adminUrl ? 'postgres' : 'sqlite';

/** `it` for a test that reads or writes SQLite's state file itself; skipped on PostgreSQL, where there is none. */
export const itOnSqliteFile = storeEngineUnderTest === 'sqlite' ? it : it.skip;

/** The PostgreSQL database the `postgres` project gives a data dir (the same one each time it is opened). */
export function postgresUrlFor(dataDir: string): string {
  if (!adminUrl) throw new Error('no PostgreSQL in this test project');
  const name = `store_${createHash('sha256').update(`${process.pid}:${dataDir}`).digest('hex').slice(0, 20)}`;
  return adminUrl.replace(/\/[^/]*$/, `/${name}`);
}

const made = new Set<string>();

/** The database of `dataDir` in the `postgres` project, made empty on first use. */
export function postgresStoreFor(dataDir: string): string {
  const url = postgresUrlFor(dataDir);
  if (!made.has(url)) {
    const admin = new SyncPgClient(adminUrl ?? '');
    try {
      admin.exec(`CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
    } finally {
      admin.close();
    }
    made.add(url);
  }
  return url;
}

/** What a spawned `cairn` needs in its environment to use the store of `dataDir` under test (nothing on SQLite). */
export function storeEnvFor(dataDir: string): NodeJS.ProcessEnv {
  return storeEngineUnderTest === 'postgres' ? { CAIRN_STORE: postgresStoreFor(dataDir) } : {};
}

/** Rows of a read-only query (SQLite's SQL) straight against the state of `dataDir`, past the store's classes. */
export function queryState(dataDir: string, sql: string): unknown[] {
  if (storeEngineUnderTest === 'sqlite') {
    const db = new Database(join(dataDir, 'cairn.db'), { readonly: true });
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  }
  const client = new SyncPgClient(postgresUrlFor(dataDir));
  try {
    return client.query(toPostgres(sql).text, []).rows;
  } finally {
    client.close();
  }
}

/**
 * Everything the store of `dataDir` keeps at rest, as bytes to search: SQLite's state file and
 * its write-ahead log, or every row of every table of the PostgreSQL database, as text.
 */
export function storedBytes(dataDir: string): Buffer {
  if (storeEngineUnderTest === 'sqlite') {
    return Buffer.concat(['cairn.db', 'cairn.db-wal'].map((file) => join(dataDir, file)).filter(existsSync).map((file) => readFileSync(file)));
  }
  const client = new SyncPgClient(postgresUrlFor(dataDir));
  try {
    const { rows } = client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`, []);
    const texts = (rows as Array<{ table_name: string }>).flatMap(({ table_name: table }) =>
      (client.query(`SELECT t::text AS row FROM "${table}" t`, []).rows as Array<{ row: string }>).map((row) => row.row),
    );
    return Buffer.from(texts.join('\n'));
  } finally {
    client.close();
  }
}
