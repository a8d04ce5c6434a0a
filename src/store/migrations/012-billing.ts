/**
 * @module Migration 12: billing. Per tenant its Stripe customer and the subscription's latest
 * state as cairn last read it (plan, status, trial end, period, whether the tenant already had
 * a trial); and the ids of the Stripe webhook events already processed, so each is applied once.
 */
export const BILLING_MIGRATION = `
  CREATE TABLE billing_accounts (
    tenant TEXT PRIMARY KEY,
    customer_id TEXT UNIQUE,
    subscription_id TEXT,
    plan TEXT NOT NULL DEFAULT 'free',
    status TEXT NOT NULL DEFAULT 'none',
    trial_ends_at TEXT,
    current_period_start TEXT,
    current_period_end TEXT,
    cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
    had_trial INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE billing_webhook_events (
    event_id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    tenant TEXT,
    processed_at TEXT NOT NULL
  );
`;
