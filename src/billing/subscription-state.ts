/**
 * @module A Stripe Subscription as cairn keeps it: the plan from its price (the paid plans'
 * CAIRN_STRIPE_PRICE_* ids), its status in API.md's five (Stripe's `unpaid` and `paused` count
 * as past_due, `incomplete_expired` as canceled, `incomplete` as none), the trial's end and the
 * current period (read from the items, where Stripe's current API keeps it).
 */
import type Stripe from 'stripe';
import type { SubscriptionState, SubscriptionStatus } from '../store/billing-accounts.js';
import type { PaidPlanId } from './plans.js';

const STATUS_OF: Readonly<Record<Stripe.Subscription.Status, SubscriptionStatus>> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  incomplete: 'none',
};

function isoOf(seconds: number | null | undefined): string | null {
  return typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null;
}

/** The plan a price id belongs to, or undefined for a price cairn does not sell. */
export function planOfPrice(priceId: string | undefined, prices: Readonly<Record<PaidPlanId, string>>): PaidPlanId | undefined {
  return (Object.keys(prices) as PaidPlanId[]).find((plan) => prices[plan] === priceId);
}

export function subscriptionState(subscription: Stripe.Subscription, prices: Readonly<Record<PaidPlanId, string>>): SubscriptionState {
  const item = subscription.items.data[0];
  const plan = planOfPrice(item?.price.id, prices) ?? subscription.metadata.cairn_plan ?? 'free';
  const legacy = subscription as unknown as { current_period_start?: number; current_period_end?: number };
  return {
    subscriptionId: subscription.id,
    plan,
    status: STATUS_OF[subscription.status] ?? 'none',
    trialEndsAt: isoOf(subscription.trial_end),
    currentPeriodStart: isoOf(item?.current_period_start ?? legacy.current_period_start),
    currentPeriodEnd: isoOf(item?.current_period_end ?? legacy.current_period_end),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
  };
}
