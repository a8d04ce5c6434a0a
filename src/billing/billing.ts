/**
 * @module Billing as `cairn serve` runs it: off (no CAIRN_STRIPE_SECRET_KEY; every tenant on the
 * unlimited self-hosted plan, and what needs Stripe answers 404 naming the settings that turn it
 * on), or on with its settings, the plans and a Stripe client. Opened once at start, so bad
 * settings or a bad plans file stop cairn before it serves anything.
 */
import type Stripe from 'stripe';
import { NotFoundError, ProviderError } from '../model/errors.js';
import { outboundRefusal } from '../net/guarded-fetch.js';
import type { Store } from '../store/store.js';
import { BILLING_ON_SETTINGS, billingSettingsFromEnv, type BillingSettings } from './billing-settings.js';
import { KeyedSerial } from './keyed-serial.js';
import { loadPlans, type Plan, type PlanId } from './plans.js';
import { stripeClient } from './stripe-client.js';

export interface BillingOn {
  enabled: true;
  settings: BillingSettings;
  plans: Readonly<Record<PlanId, Plan>>;
  stripe: Stripe;
  store: Store;
  /** Webhook events of one subscription are read from Stripe and stored one at a time, in arrival order. */
  perSubscription: KeyedSerial;
}

export type Billing = BillingOn | { enabled: false };

export const BILLING_OFF: Billing = { enabled: false };

/** The self-hosted plan every tenant is on while billing is off: nothing limited, nothing charged. */
export const SELF_HOSTED_PLAN = 'self-hosted';

export function openBilling(store: Store, env: NodeJS.ProcessEnv = process.env): Billing {
  const settings = billingSettingsFromEnv(env);
  if (!settings) return BILLING_OFF;
  return { enabled: true, settings, plans: loadPlans(store.dataDir), stripe: stripeClient(settings), store, perSubscription: new KeyedSerial() };
}

/** Billing on, or the 404 that says how to turn it on. */
export function requireBilling(billing: Billing, what: string): BillingOn {
  if (billing.enabled) return billing;
  throw new NotFoundError(`${what} needs billing, which is off on this cairn (every tenant is on the unlimited ${SELF_HOSTED_PLAN} plan); set ${BILLING_ON_SETTINGS.join(', ')} to turn it on`);
}

/** Runs a Stripe call; Stripe's refusals and unreachable hosts become a 502 saying what failed. */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // The SDK wraps what fetch threw in a StripeConnectionError's `detail`.
    const refused = outboundRefusal(error) ?? outboundRefusal((error as { detail?: unknown } | null)?.detail);
    if (refused) throw new ProviderError(`${what}: cairn may not reach Stripe's API base: ${refused.message}`);
    const message = error instanceof Error ? error.message : String(error);
    throw new ProviderError(`${what}: Stripe answered: ${message}`);
  }
}
