/**
 * @module Billing records per tenant: the Stripe customer cairn made for it, the subscription's
 * latest state as last read from Stripe, and the webhook events already processed (each
 * applied exactly once: its id is recorded in the same transaction as its change).
 */
import type { SqlConnection } from './connection.js';
import { nowIso, StatementCache } from './sqlite.js';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'none'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A subscription's state as cairn keeps it. */
export interface SubscriptionState {
  subscriptionId: string | null;
  plan: string;
  status: SubscriptionStatus;
  trialEndsAt: string | null;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

export interface BillingAccount extends SubscriptionState {
  tenant: string;
  customerId: string | null;
  /** Whether the tenant has had a trial already (a second one is never offered). */
  hadTrial: boolean;
  updatedAt: string;
}

interface AccountRow {
  tenant: string;
  customer_id: string | null;
  subscription_id: string | null;
  plan: string;
  status: SubscriptionStatus;
  trial_ends_at: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  cancel_at_period_end: number;
  had_trial: number;
  updated_at: string;
}

export class BillingAccounts {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqlConnection) {
    this.sql = new StatementCache(db);
  }

  /** The tenant's account, or undefined when it never started a checkout. */
  get(tenant: string): BillingAccount | undefined {
    const row = this.sql.get(`SELECT * FROM billing_accounts WHERE tenant = ?`).get(tenant) as AccountRow | undefined;
    return row && toAccount(row);
  }

  /** The tenant whose Stripe customer this is, if cairn made it. */
  tenantOfCustomer(customerId: string): string | undefined {
    const row = this.sql.get(`SELECT tenant FROM billing_accounts WHERE customer_id = ?`).get(customerId) as { tenant: string } | undefined;
    return row?.tenant;
  }

  /** Records the tenant's Stripe customer (the same id again is a no-op). */
  recordCustomer(tenant: string, customerId: string): void {
    this.sql
      .get(
        `INSERT INTO billing_accounts (tenant, customer_id, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (tenant) DO UPDATE SET customer_id = excluded.customer_id, updated_at = excluded.updated_at`,
      )
      .run(tenant, customerId, nowIso());
  }

  /** Stores the subscription's latest state; a trial seen once marks the tenant as having had one. */
  saveSubscription(tenant: string, state: SubscriptionState): void {
    this.sql
      .get(
        `INSERT INTO billing_accounts (tenant, subscription_id, plan, status, trial_ends_at, current_period_start, current_period_end, cancel_at_period_end, had_trial, updated_at)
         VALUES (@tenant, @subscriptionId, @plan, @status, @trialEndsAt, @currentPeriodStart, @currentPeriodEnd, @cancel, @hadTrial, @now)
         ON CONFLICT (tenant) DO UPDATE SET subscription_id = excluded.subscription_id, plan = excluded.plan, status = excluded.status,
           trial_ends_at = excluded.trial_ends_at, current_period_start = excluded.current_period_start,
           current_period_end = excluded.current_period_end, cancel_at_period_end = excluded.cancel_at_period_end,
           had_trial = MAX(billing_accounts.had_trial, excluded.had_trial), updated_at = excluded.updated_at`,
      )
      .run({
        tenant,
        subscriptionId: state.subscriptionId,
        plan: state.plan,
        status: state.status,
        trialEndsAt: state.trialEndsAt,
        currentPeriodStart: state.currentPeriodStart,
        currentPeriodEnd: state.currentPeriodEnd,
        cancel: state.cancelAtPeriodEnd ? 1 : 0,
        hadTrial: state.trialEndsAt !== null ? 1 : 0,
        now: nowIso(),
      });
  }

  /**
   * Runs `apply` for a webhook event unless its id was processed before; the id is recorded in
   * the same transaction as what `apply` writes. Returns false for a replay (nothing done).
   */
  processOnce(event: { id: string; type: string }, apply: () => string | undefined): boolean {
    return this.db
      .transaction((): boolean => {
        const seen = this.sql.get(`SELECT 1 FROM billing_webhook_events WHERE event_id = ?`).get(event.id);
        if (seen) return false;
        const tenant = apply() ?? null;
        this.sql.get(`INSERT INTO billing_webhook_events (event_id, type, tenant, processed_at) VALUES (?, ?, ?, ?)`).run(event.id, event.type, tenant, nowIso());
        return true;
      })
      .immediate();
  }

  /** Whether the webhook event with this id was applied already. */
  wasProcessed(eventId: string): boolean {
    return this.sql.get(`SELECT 1 FROM billing_webhook_events WHERE event_id = ?`).get(eventId) !== undefined;
  }

  /** How many webhook events were processed (for tests and diagnostics). */
  processedEventCount(): number {
    return (this.sql.get(`SELECT COUNT(*) AS n FROM billing_webhook_events`).get() as { n: number }).n;
  }
}

function toAccount(row: AccountRow): BillingAccount {
  return {
    tenant: row.tenant,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    plan: row.plan,
    status: row.status,
    trialEndsAt: row.trial_ends_at,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end === 1,
    hadTrial: row.had_trial === 1,
    updatedAt: row.updated_at,
  };
}
