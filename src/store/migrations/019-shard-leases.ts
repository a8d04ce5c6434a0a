/**
 * @module Migration 19: reconciling shared by several replicas. `shard_leases` holds one lease per
 * shard of the uid space, with a fencing token that only ever grows (one more at every new
 * holding); `replicas` is each replica's heartbeat, which tells how many are live and so how
 * many shards each should hold.
 */
export const SHARD_LEASES_MIGRATION = `
  CREATE TABLE shard_leases (
    shard INTEGER PRIMARY KEY,
    holder TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    token INTEGER NOT NULL,
    acquired_at TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE TABLE replicas (
    holder TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
`;
