/**
 * @module Owners' ways into Stripe: a Checkout Session in subscription mode for a paid plan (the
 * tenant's Stripe Customer made once, with an idempotency key from the tenant id so a retry after
 * a crash makes no second one; a 7-day trial only for a tenant's first), and a Billing Portal
 * session for a tenant that has a customer. Return URLs must be on cairn's public origin.
 */
import type Stripe from 'stripe';
import { ConflictError, ValidationError } from '../model/errors.js';
import { callStripe, type BillingOn } from './billing.js';
import { isPaidPlanId, PAID_PLAN_IDS } from './plans.js';
import { checkReturnUrls } from './return-urls.js';

export interface CheckoutRequest {
  plan: string;
  successUrl: string;
  cancelUrl: string;
}

/** The idempotency key of a tenant's customer create: the same for every attempt, ever. */
export function customerIdempotencyKey(tenant: string): string {
  return `cairn-customer-${tenant}`;
}

/** What the tenant's customer is made with: the same on every attempt, as its idempotency key requires. */
export function customerParams(billing: BillingOn, tenant: string): Stripe.CustomerCreateParams {
  const name = billing.store.tenants.get(tenant)?.name ?? tenant;
  return { name: `cairn tenant ${name}`, metadata: { cairn_tenant: tenant } };
}

/** The tenant's Stripe customer id, made and recorded on first use. */
export async function ensureCustomer(billing: BillingOn, tenant: string): Promise<string> {
  const known = billing.store.billing.get(tenant)?.customerId;
  if (known) return known;
  const customer = await callStripe('creating the tenant\'s Stripe customer', () =>
    billing.stripe.customers.create(customerParams(billing, tenant), { idempotencyKey: customerIdempotencyKey(tenant) }),
  );
  billing.store.billing.recordCustomer(tenant, customer.id);
  return customer.id;
}

export async function openCheckout(billing: BillingOn, tenant: string, request: CheckoutRequest): Promise<{ id: string; url: string }> {
  if (!isPaidPlanId(request.plan)) {
    const message = `must be one of ${PAID_PLAN_IDS.join(', ')} (the free plan needs no checkout), got "${request.plan}"`;
    throw new ValidationError(`plan ${message}`, [{ pointer: '/plan', message }]);
  }
  checkReturnUrls({ success_url: request.successUrl, cancel_url: request.cancelUrl }, billing.settings.publicUrl);
  const account = billing.store.billing.get(tenant);
  if (account && (account.status === 'trialing' || account.status === 'active' || account.status === 'past_due')) {
    throw new ConflictError(`the tenant already has a ${account.status} ${account.plan} subscription; change or cancel it through POST /billing/portal`);
  }
  const plan = billing.plans[request.plan];
  const price = billing.settings.prices[request.plan];
  const customer = await ensureCustomer(billing, tenant);
  const trial = account?.hadTrial ? {} : { trial_period_days: plan.trialDays };
  const metadata = { cairn_tenant: tenant, cairn_plan: plan.id };
  const session = await callStripe('opening a Stripe Checkout session', () =>
    billing.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      client_reference_id: tenant,
      line_items: [{ price, quantity: 1 }],
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
      metadata,
      subscription_data: { metadata, ...trial },
    }),
  );
  if (!session.url) throw new ConflictError('Stripe made a Checkout session without a URL to send the browser to');
  return { id: session.id, url: session.url };
}

export async function openPortal(billing: BillingOn, tenant: string, returnUrl: string): Promise<{ url: string }> {
  checkReturnUrls({ return_url: returnUrl }, billing.settings.publicUrl);
  const customer = billing.store.billing.get(tenant)?.customerId;
  if (!customer) throw new ConflictError('the tenant has no Stripe customer yet: subscribe first with POST /billing/checkout, then manage the subscription here');
  const session = await callStripe('opening a Stripe Billing Portal session', () =>
    billing.stripe.billingPortal.sessions.create({ customer, return_url: returnUrl }),
  );
  return { url: session.url };
}
