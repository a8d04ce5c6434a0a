/**
 * @module Migration 15: moves from hosting platforms (Heroku, Railway) onto a cairn server. One
 * row per migration and tenant: what it moves (platform, subject), where to (server), its status,
 * its steps with their outcomes (JSON), the platform's analysis (names, never values), the resources it made, the manifests it applies and the
 * resulting URL. Never the platform's API key; the config var values it reads are sealed in
 * `secrets` (purpose `migration-values`), never here.
 */
export const PLATFORM_MIGRATIONS_MIGRATION = `
  CREATE TABLE platform_migrations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    platform TEXT NOT NULL,
    subject TEXT NOT NULL,
    subject_name TEXT NOT NULL,
    server_id TEXT NOT NULL,
    server_name TEXT NOT NULL,
    status TEXT NOT NULL,
    steps TEXT NOT NULL,
    resources TEXT NOT NULL DEFAULT '[]',
    analysis TEXT NOT NULL,
    manifests TEXT NOT NULL,
    url TEXT,
    error TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX platform_migrations_by_tenant ON platform_migrations (tenant, seq);
  CREATE INDEX platform_migrations_unfinished ON platform_migrations (status) WHERE status IN ('pending', 'running');
`;
