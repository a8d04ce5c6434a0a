/**
 * @module Migration 1: desired state, recorded state, events, pending operations, leases.
 */
export const RESOURCES_MIGRATION = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
  INSERT INTO meta (key, value) VALUES ('revision', 0);

  CREATE TABLE tenants (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );
  INSERT INTO tenants (id, name, created_at) VALUES ('default', 'default', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

  CREATE TABLE resources (
    uid TEXT PRIMARY KEY,
    tenant TEXT NOT NULL REFERENCES tenants (id),
    kind TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    labels TEXT NOT NULL,
    annotations TEXT NOT NULL,
    spec TEXT NOT NULL,
    generation INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deletion_timestamp TEXT,
    UNIQUE (tenant, kind, namespace, name)
  );
  CREATE INDEX resources_by_version ON resources (resource_version);

  CREATE TABLE resource_status (
    uid TEXT PRIMARY KEY REFERENCES resources (uid) ON DELETE CASCADE,
    phase TEXT NOT NULL,
    conditions TEXT NOT NULL,
    observed_generation INTEGER NOT NULL,
    external_id TEXT,
    endpoints TEXT NOT NULL,
    applied_spec TEXT,
    incarnation INTEGER NOT NULL,
    details TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant TEXT NOT NULL,
    uid TEXT NOT NULL,
    kind TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('Normal', 'Warning')),
    reason TEXT NOT NULL,
    message TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX events_by_resource ON events (uid, id);
  CREATE INDEX events_by_tenant ON events (tenant, id);

  CREATE TABLE pending_operations (
    uid TEXT NOT NULL,
    operation TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    started_at TEXT NOT NULL,
    PRIMARY KEY (uid, operation)
  );

  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    acquired_at TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `;
