/**
 * @module The sandbox cloud's SQLite file (`<dataDir>/sandbox-cloud.db`, WAL, busy timeout) and
 * its schema. Client tokens are UNIQUE, so a repeated create can never make a second resource,
 * and foreign keys keep a server from vanishing under what it hosts.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const DATABASE_FILE_NAME = 'sandbox-cloud.db';

const SCHEMA_VERSION = 1;

const SCHEMA_V1 = `
CREATE TABLE servers (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  region TEXT NOT NULL,
  size TEXT NOT NULL,
  image TEXT NOT NULL,
  power TEXT NOT NULL CHECK (power IN ('running', 'stopped')),
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE databases (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE RESTRICT,
  type TEXT NOT NULL CHECK (type IN ('postgresql', 'mongodb')),
  version TEXT NOT NULL,
  engine_version TEXT NOT NULL,
  storage_gb INTEGER,
  username TEXT NOT NULL,
  password TEXT NOT NULL,
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE apps (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE RESTRICT,
  config_json TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'stopped')),
  release INTEGER NOT NULL,
  release_digest TEXT NOT NULL,
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX databases_server ON databases(server_id);
CREATE INDEX apps_server ON apps(server_id);
`;

/** Opens (creating if needed) the sandbox's database in `dataDir` and brings its schema up to date. */
export function openSandboxDatabase(dataDir: string): Database.Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DATABASE_FILE_NAME));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(`sandbox cloud: ${join(dataDir, DATABASE_FILE_NAME)} has schema version ${version}, newer than this cairn knows (${SCHEMA_VERSION})`);
    }
    if (version < 1) {
      db.transaction(() => {
        db.exec(SCHEMA_V1);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
