/**
 * @module Migration 8: events aggregate repeats (as Kubernetes events do): how many times an
 * event was seen, and when last; pruning by age reads the latter.
 */
export const EVENT_AGGREGATION_MIGRATION = `
  ALTER TABLE events ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE events ADD COLUMN last_seen_at TEXT;
  UPDATE events SET last_seen_at = created_at;
  CREATE INDEX events_by_last_seen ON events (last_seen_at);
`;
