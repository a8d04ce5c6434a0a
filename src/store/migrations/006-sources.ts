/**
 * @module Migration 6: git sources — where manifests come from (url, ref, path), how often they
 * are fetched, whether they prune and whether they are suspended — and what the last sync found:
 * the commit in force, the errors of a rejected revision, orphans and ownership conflicts.
 * Credentials and the webhook secret are secrets (encrypted), never columns here.
 */
export const SOURCES_MIGRATION = `
  CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    ref TEXT NOT NULL,
    path TEXT NOT NULL,
    interval_seconds INTEGER NOT NULL,
    prune INTEGER NOT NULL CHECK (prune IN (0, 1)),
    suspended INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
    auth_type TEXT CHECK (auth_type IN ('token', 'basic')),
    auth_username TEXT,
    -- the commit whose manifests are in force, and the last commit looked at (maybe rejected)
    revision TEXT,
    attempted_revision TEXT,
    last_attempt_at TEXT,
    last_synced_at TEXT,
    conditions TEXT NOT NULL DEFAULT '[]',
    errors TEXT NOT NULL DEFAULT '[]',
    orphans TEXT NOT NULL DEFAULT '[]',
    conflicts TEXT NOT NULL DEFAULT '[]',
    -- bumped by a webhook, POST /sync or \`cairn sources sync\`; the sync loop follows it
    sync_requests INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (tenant, name)
  );
`;
