/**
 * @module Migration 9: the manifest cache — the parsed and validated manifests of YAML texts read
 * before, by a key that hashes the text with everything its reading depends on (see
 * model/manifest-cache.ts), so that a plan or a sync re-reads only the files that changed.
 */
export const MANIFEST_CACHE_MIGRATION = `
  CREATE TABLE manifest_cache (
    key TEXT PRIMARY KEY,
    entry TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    stored_at INTEGER NOT NULL
  );
  CREATE INDEX manifest_cache_by_age ON manifest_cache (stored_at);
`;
