/**
 * @module The sandbox cloud's SQLite file (`<dataDir>/sandbox-cloud.db`, WAL, busy timeout,
 * secure_delete so replaced secrets are zeroed) and its schema, reached by numbered steps from
 * whatever version the file has. Client tokens are UNIQUE, so a repeated create can never make a
 * second resource, and foreign keys keep a server from vanishing under what it hosts.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SCHEMA_V1 } from './schema-v1.js';
import { migrateToV2 } from './schema-v2.js';
import { migrateToV3 } from './schema-v3.js';

export const DATABASE_FILE_NAME = 'sandbox-cloud.db';

/** Step n brings a file from version n to n + 1. */
const STEPS: ReadonlyArray<(db: Database.Database) => void> = [
  (db) => db.exec(SCHEMA_V1),
  migrateToV2,
  migrateToV3,
];

export const SCHEMA_VERSION = STEPS.length;

/** Opens (creating if needed) the sandbox's database in `dataDir` and brings its schema up to date. */
export function openSandboxDatabase(dataDir: string): Database.Database {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DATABASE_FILE_NAME);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    db.pragma('secure_delete = ON');
    const migrated = db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new Error(`sandbox cloud: ${path} has schema version ${version}, newer than this cairn knows (${SCHEMA_VERSION})`);
      }
      for (let step = version; step < SCHEMA_VERSION; step += 1) STEPS[step]?.(db);
      if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return version < SCHEMA_VERSION;
    }).immediate();
    // Old pages of a migrated file (plaintext passwords, env values) leave the WAL for the zeroed main file.
    if (migrated) db.pragma('wal_checkpoint(TRUNCATE)');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
