/**
 * @module The sandbox file's second schema (user_version 2): database passwords only as salted
 * hashes, each database's simulated data volume, app env values only as digests, and the new
 * tables for backups, restores and app logs. Moving a version-1 file hashes its plaintext
 * passwords and digests its env values; with secure_delete on, the old bytes are zeroed.
 */
import type Database from 'better-sqlite3';
import { initialDataBytes } from '../backup-content.js';
import { hashPassword } from '../database-passwords.js';
import { digestEnv } from '../env-digest.js';

const DATABASES_V2 = `
CREATE TABLE databases_v2 (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE RESTRICT,
  type TEXT NOT NULL CHECK (type IN ('postgresql', 'mongodb')),
  version TEXT NOT NULL,
  engine_version TEXT NOT NULL,
  storage_gb INTEGER,
  username TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  password_set_at_ms INTEGER NOT NULL,
  data_seed TEXT NOT NULL,
  data_bytes INTEGER NOT NULL,
  last_restored_backup_id TEXT,
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
)`;

const NEW_TABLES = `
CREATE TABLE backups (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  database_id TEXT NOT NULL,            -- no foreign key: a backup outlives its database
  database_type TEXT NOT NULL CHECK (database_type IN ('postgresql', 'mongodb')),
  data_seed TEXT NOT NULL,
  data_bytes INTEGER NOT NULL,
  manifest TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  checksum TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL,
  completed_at_ms INTEGER NOT NULL
);
CREATE INDEX backups_database ON backups(database_id);
CREATE TABLE restores (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  database_id TEXT NOT NULL,
  backup_id TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL,
  completed_at_ms INTEGER NOT NULL
);
CREATE INDEX restores_database ON restores(database_id);
CREATE TABLE app_logs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  ts_ms INTEGER NOT NULL,
  stream TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr', 'system')),
  line TEXT NOT NULL
);
CREATE INDEX app_logs_app_ts ON app_logs(app_id, ts_ms, seq);
`;

interface V1DatabaseRow {
  id: string;
  type: 'postgresql' | 'mongodb';
  storage_gb: number | null;
  password: string;
  created_at_ms: number;
}

interface V1AppRow {
  id: string;
  config_json: string;
}

function moveDatabases(db: Database.Database): void {
  db.exec(DATABASES_V2);
  const insert = db.prepare(
    `INSERT INTO databases_v2 (id, client_token, name, server_id, type, version, engine_version, storage_gb, username,
       password_hash, password_set_at_ms, data_seed, data_bytes, last_restored_backup_id, busy_status, busy_until_ms, created_at_ms)
     SELECT id, client_token, name, server_id, type, version, engine_version, storage_gb, username,
       @password_hash, created_at_ms, id, @data_bytes, NULL, busy_status, busy_until_ms, created_at_ms
     FROM databases WHERE id = @id`,
  );
  for (const row of db.prepare('SELECT id, type, storage_gb, password, created_at_ms FROM databases').all() as V1DatabaseRow[]) {
    insert.run({ id: row.id, password_hash: hashPassword(row.password), data_bytes: initialDataBytes(row.type, row.storage_gb) });
  }
  db.exec(`DROP INDEX databases_server;
    DROP TABLE databases;
    ALTER TABLE databases_v2 RENAME TO databases;
    CREATE INDEX databases_server ON databases(server_id);`);
}

function digestAppEnvironments(db: Database.Database): void {
  const update = db.prepare('UPDATE apps SET config_json = ? WHERE id = ?');
  for (const row of db.prepare('SELECT id, config_json FROM apps').all() as V1AppRow[]) {
    const config = JSON.parse(row.config_json) as { env?: Record<string, string> };
    update.run(JSON.stringify({ ...config, env: digestEnv(config.env ?? {}) }), row.id);
  }
}

/** Brings a version-1 file to version 2; runs inside the caller's write transaction. */
export function migrateToV2(db: Database.Database): void {
  moveDatabases(db);
  digestAppEnvironments(db);
  db.exec(NEW_TABLES);
}
