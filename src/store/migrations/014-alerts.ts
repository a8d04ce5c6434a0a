/**
 * @module Migration 14: alerts. `alert_conditions` keeps, per (AlertRule, Server), since when the
 * metric has been above the threshold and how many evaluations in a row it has been back at or
 * below it while firing, so a restart neither restarts a rule's `forSeconds` nor forgets an
 * alert half resolved. `alerts` holds each firing and its resolution; a partial unique index
 * allows one firing alert per (rule, server). `alert_deliveries` is the notification outbox: one
 * row per (alert, channel, event), written in the transaction that fires or resolves the alert,
 * sent by the delivery loop and marked after, so a crash neither loses nor doubles one.
 */
export const ALERTS_MIGRATION = `
  CREATE TABLE alert_conditions (
    rule_uid TEXT NOT NULL,
    server_uid TEXT NOT NULL,
    tenant TEXT NOT NULL,
    above_since TEXT,
    below_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (rule_uid, server_uid)
  );
  CREATE TABLE alerts (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    namespace TEXT NOT NULL,
    rule_uid TEXT NOT NULL,
    rule_name TEXT NOT NULL,
    server_uid TEXT NOT NULL,
    server_name TEXT NOT NULL,
    metric TEXT NOT NULL,
    threshold REAL NOT NULL,
    for_seconds INTEGER NOT NULL,
    value REAL NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('firing', 'resolved')),
    started_at TEXT NOT NULL,
    resolved_at TEXT,
    resolved_value REAL
  );
  CREATE UNIQUE INDEX alerts_one_firing ON alerts (rule_uid, server_uid) WHERE state = 'firing';
  CREATE INDEX alerts_by_tenant ON alerts (tenant, started_at DESC, id DESC);
  CREATE TABLE alert_deliveries (
    id TEXT PRIMARY KEY,
    alert_id TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    tenant TEXT NOT NULL,
    channel_index INTEGER NOT NULL,
    channel TEXT NOT NULL,
    event TEXT NOT NULL CHECK (event IN ('firing', 'resolved')),
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at TEXT NOT NULL,
    delivered_at TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (alert_id, channel_index, event)
  );
  CREATE INDEX alert_deliveries_due ON alert_deliveries (status, next_attempt_at);
`;
