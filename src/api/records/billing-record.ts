/**
 * @module Billing's REST bodies (API.md "Billing"): plans, the subscription and usage in
 * snake_case, for billing on and for the self-hosted plan of billing off.
 */
import { BILLING_ON_SETTINGS } from '../../billing/billing-settings.js';
import { SELF_HOSTED_PLAN, type Billing } from '../../billing/billing.js';
import { PLAN_IDS, QUOTA_KINDS, type QuotaKind } from '../../billing/plans.js';
import type { Usage } from '../../billing/usage.js';
import type { BillingAccount } from '../../store/billing-accounts.js';

export interface PlanBody {
  id: string;
  name: string;
  price_monthly_cents: number;
  currency: string;
  trial_days: number;
  limits: Record<QuotaKind, number | null>;
}

export interface PlansBody {
  items: PlanBody[];
  billing_enabled: boolean;
  message: string;
}

export function plansBody(billing: Billing): PlansBody {
  if (!billing.enabled) {
    const unlimited = Object.fromEntries(QUOTA_KINDS.map((k) => [k, null])) as Record<QuotaKind, null>;
    return {
      items: [{ id: SELF_HOSTED_PLAN, name: 'Self-hosted', price_monthly_cents: 0, currency: 'usd', trial_days: 0, limits: unlimited }],
      billing_enabled: false,
      message: `billing is off: every tenant is on the unlimited ${SELF_HOSTED_PLAN} plan; set ${BILLING_ON_SETTINGS.join(', ')} to sell the free, pro and business plans`,
    };
  }
  return {
    items: PLAN_IDS.map((id) => {
      const plan = billing.plans[id];
      return { id, name: plan.name, price_monthly_cents: plan.priceMonthlyCents, currency: plan.currency, trial_days: plan.trialDays, limits: { ...plan.limits } };
    }),
    billing_enabled: true,
    message: 'paid plans start with a trial when the tenant has not had one; subscribe with POST /billing/checkout',
  };
}

export interface SubscriptionBody {
  plan: string;
  status: string;
  trial_ends_at: string | null;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
}

export function subscriptionBody(billing: Billing, account: BillingAccount | undefined): SubscriptionBody {
  if (!billing.enabled) return { plan: SELF_HOSTED_PLAN, status: 'none', trial_ends_at: null, current_period_end: null, cancel_at_period_end: false };
  if (!account || account.status === 'none') return { plan: 'free', status: 'none', trial_ends_at: null, current_period_end: null, cancel_at_period_end: false };
  return {
    plan: account.plan,
    status: account.status,
    trial_ends_at: account.trialEndsAt,
    current_period_end: account.currentPeriodEnd,
    cancel_at_period_end: account.cancelAtPeriodEnd,
  };
}

export function usageBody(usage: Usage): Record<string, unknown> {
  return { plan: usage.plan, period_start: usage.periodStart, period_end: usage.periodEnd, resources: usage.resources, warnings: usage.warnings };
}
