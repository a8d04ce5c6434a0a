/**
 * @module Migration 17: deploy on push. Deployments may be triggered by an App's push webhook
 * (`trigger = 'webhook'`, SQLite cannot widen a CHECK in place, so the table is rebuilt), remember
 * the delivery that asked for them (`delivery_id`, unique per app: a replayed delivery finds its
 * deployment instead of making a second) and keep their build and start output (`build_log`,
 * bounded by the writer).
 */
export const DEPLOY_ON_PUSH_MIGRATION = `
  CREATE TABLE deployments_next (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    app_uid TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'building', 'deploying', 'succeeded', 'failed')),
    trigger TEXT NOT NULL CHECK (trigger IN ('api', 'config', 'webhook')),
    ref TEXT,
    commit_sha TEXT,
    message TEXT,
    build_output_tail TEXT,
    release INTEGER,
    config_digest TEXT,
    release_digest TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    delivery_id TEXT,
    build_log TEXT,
    UNIQUE (app_uid, version),
    UNIQUE (app_uid, delivery_id)
  );
  INSERT INTO deployments_next (seq, id, tenant, app_uid, version, status, trigger, ref, commit_sha, message, build_output_tail,
      release, config_digest, release_digest, created_at, started_at, finished_at)
    SELECT seq, id, tenant, app_uid, version, status, trigger, ref, commit_sha, message, build_output_tail,
      release, config_digest, release_digest, created_at, started_at, finished_at FROM deployments;
  DROP TABLE deployments;
  ALTER TABLE deployments_next RENAME TO deployments;
`;
