/**
 * @module Migration 7: a tombstone per removed resource (its last state and the revision of its
 * removal), so that a Kubernetes watch resuming from a resourceVersion sees DELETED events, and
 * the revision up to which old tombstones were pruned (a watch from before it gets 410 Gone); and
 * each resource's creation revision, which tells a watch ADDED from MODIFIED; and the last
 * configuration each field manager applied server-side (what its next apply removes or conflicts with).
 */
export const TOMBSTONES_MIGRATION = `
  ALTER TABLE resources ADD COLUMN created_revision INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE resource_tombstones (
    revision INTEGER NOT NULL,
    uid TEXT NOT NULL,
    tenant TEXT NOT NULL,
    kind TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    resource TEXT NOT NULL,
    PRIMARY KEY (revision, uid)
  );
  CREATE INDEX resource_tombstones_by_scope ON resource_tombstones (tenant, kind, revision);
  INSERT INTO meta (key, value) VALUES ('tombstones_pruned_through', 0);

  CREATE TABLE applied_configurations (
    uid TEXT NOT NULL REFERENCES resources (uid) ON DELETE CASCADE,
    manager TEXT NOT NULL,
    config TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (uid, manager)
  );
`;
