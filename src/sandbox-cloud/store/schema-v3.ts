/**
 * @module The sandbox file's third schema (user_version 3): figures a test set for a server's
 * metrics (`PUT /v1/servers/{id}/metrics`), held in the file so they survive a restart of the
 * sandbox or of a cairn that runs it inside itself. A NULL column follows the simulation.
 */
import type Database from 'better-sqlite3';

export function migrateToV3(db: Database.Database): void {
  db.exec(`
CREATE TABLE metric_overrides (
  server_id TEXT PRIMARY KEY REFERENCES servers(id) ON DELETE CASCADE,
  cpu_percent REAL,
  memory_percent REAL,
  disk_percent REAL
)`);
}
