/**
 * @module Migration 5: each resource's `spec_version`, the revision of the last change to its
 * desired state (spec, labels, annotations, deletion). The API's ETag is this version, so the
 * reconciler's status writes never make a client's If-Match stale.
 */
export const SPEC_VERSION_MIGRATION = `
  ALTER TABLE resources ADD COLUMN spec_version INTEGER NOT NULL DEFAULT 0;
  UPDATE resources SET spec_version = resource_version;
`;
