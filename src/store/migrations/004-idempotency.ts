/**
 * @module Migration 4: the first response to each Idempotency-Key, kept 24 hours for replays.
 */
export const IDEMPOTENCY_MIGRATION = `
  CREATE TABLE idempotency_keys (
    tenant TEXT NOT NULL,
    principal TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER,
    content_type TEXT,
    location TEXT,
    etag TEXT,
    body TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant, principal, key)
  );
  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
`;
