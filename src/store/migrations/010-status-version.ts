/**
 * @module Migration 10: each status row's `status_version`, bumped by every status write. Every
 * writer of status (the reconciler, the provider test route) passes the version it read, and a
 * write made against an older version is refused (compare-and-swap), so no change is lost to a
 * writer that read before it. A resource with no status row yet is at version 0.
 */
export const STATUS_VERSION_MIGRATION = `
  ALTER TABLE resource_status ADD COLUMN status_version INTEGER NOT NULL DEFAULT 1;
`;
