/**
 * @module Migration 3: records of what users asked to happen beyond desired state — backups,
 * deployments, actions — plus the scheduled-backup bookkeeping, and a wake counter on
 * resources that the reconciler's change feed follows (asking for a backup bumps it).
 */
export const RECORDS_MIGRATION = `
  ALTER TABLE resources ADD COLUMN wakes INTEGER NOT NULL DEFAULT 0;

  CREATE TABLE backups (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    database_uid TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('manual', 'scheduled', 'final')),
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
    -- scheduled: the cron time it is for; final: the deletion it precedes; manual: NULL
    slot TEXT,
    external_id TEXT,
    size_bytes INTEGER,
    checksum TEXT,
    message TEXT,
    created_at TEXT NOT NULL,
    completed_at TEXT,
    UNIQUE (database_uid, slot)
  );
  CREATE INDEX backups_by_database ON backups (database_uid, seq);

  CREATE TABLE backup_schedules (
    database_uid TEXT PRIMARY KEY,
    schedule TEXT NOT NULL,
    since TEXT NOT NULL
  );

  CREATE TABLE deployments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    app_uid TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'building', 'deploying', 'succeeded', 'failed')),
    trigger TEXT NOT NULL CHECK (trigger IN ('api', 'config')),
    ref TEXT,
    commit_sha TEXT,
    message TEXT,
    build_output_tail TEXT,
    -- the vendor's release number it rolled out, once the vendor has it, and the digests
    -- of the configuration sent and of the release the vendor made of it
    release INTEGER,
    config_digest TEXT,
    release_digest TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    UNIQUE (app_uid, version)
  );

  CREATE TABLE actions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    uid TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('start', 'stop', 'reboot', 'restore', 'rotate_credentials')),
    params TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
    -- how far a running action got (e.g. the reboot was sent), for the reconciler
    step TEXT,
    message TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX actions_by_resource ON actions (uid, status, seq);
`;
