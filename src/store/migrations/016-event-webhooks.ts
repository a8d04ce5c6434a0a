/**
 * @module Migration 16: outbound event webhooks. `event_webhooks` are a tenant's subscriptions
 * (url, event names; the signing secret is sealed in `secrets`, purpose `event-webhook`), each
 * remembering the newest event id when it was made so it never gets older events.
 * `event_webhook_deliveries` is their outbox: one row per (webhook, event), holding the exact
 * body sent. `event_dispatch_cursor` is the id of the newest event the dispatcher has turned into
 * deliveries; it advances in the transaction that writes them, so a restart neither skips nor
 * repeats an event. It starts at the newest event there is now.
 */
export const EVENT_WEBHOOKS_MIGRATION = `
  CREATE TABLE event_webhooks (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT,
    after_event_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX event_webhooks_by_tenant ON event_webhooks (tenant, created_at DESC, id DESC);
  CREATE TABLE event_webhook_deliveries (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL REFERENCES event_webhooks (id) ON DELETE CASCADE,
    tenant TEXT NOT NULL,
    event_id INTEGER NOT NULL,
    event TEXT NOT NULL,
    resource_kind TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at TEXT NOT NULL,
    delivered_at TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (webhook_id, event_id)
  );
  CREATE INDEX event_webhook_deliveries_due ON event_webhook_deliveries (status, next_attempt_at);
  CREATE TABLE event_dispatch_cursor (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    last_event_id INTEGER NOT NULL
  );
  INSERT INTO event_dispatch_cursor (singleton, last_event_id) SELECT 1, COALESCE(MAX(id), 0) FROM events;
`;
