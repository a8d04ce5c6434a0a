/**
 * @module Tests of billing's Stripe side against the Stripe double, without cairn's HTTP layer:
 * webhooks applied exactly once, forged and stale signatures refused with nothing changed, a
 * deleted subscription falling back to free; the customer made once even when an answer is lost
 * or cairn crashed before recording it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeDouble, type StripeDouble } from '../../test/doubles/stripe/stripe-double.js';
import { MalformedRequestError } from '../model/errors.js';
import { Store } from '../store/store.js';
import { openBilling, type BillingOn } from './billing.js';
import { customerIdempotencyKey, customerParams, ensureCustomer, openCheckout } from './checkout.js';
import { effectivePlan } from './quota.js';
import { receiveEvent, verifiedEvent } from './webhooks.js';

const SECRET_KEY = 'sk_test_billingUnit1';
const WEBHOOK_SECRET = 'whsec_billingUnit';

let double: StripeDouble;
let stripe: Stripe;
let dir: string;
let store: Store;
let billing: BillingOn;

beforeAll(async () => {
  double = await startStripeDouble({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  stripe = new Stripe(SECRET_KEY, double.sdkOptions);
  const pro = await stripe.prices.create({ currency: 'usd', unit_amount: 2900, recurring: { interval: 'month' }, product_data: { name: 'pro' } });
  const business = await stripe.prices.create({ currency: 'usd', unit_amount: 9900, recurring: { interval: 'month' }, product_data: { name: 'business' } });
  dir = mkdtempSync(join(tmpdir(), 'cairn-billing-unit-'));
  const env = {
    CAIRN_STRIPE_SECRET_KEY: SECRET_KEY, CAIRN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, CAIRN_STRIPE_API_BASE: double.url,
    CAIRN_STRIPE_PRICE_PRO: pro.id, CAIRN_STRIPE_PRICE_BUSINESS: business.id, CAIRN_ALLOW_PRIVATE_ENDPOINTS: 'true',
  };
  store = Store.open(dir, { env });
  const opened = openBilling(store, env);
  if (!opened.enabled) throw new Error('billing should be on');
  billing = opened;
});

afterAll(async () => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
  await double.stop();
});

/** Runs a delivery through cairn's verification and processing, as the route does. */
async function deliver(payload: string, header: string): Promise<ReturnType<typeof receiveEvent>> {
  return receiveEvent(billing, verifiedEvent(billing, Buffer.from(payload), header));
}

// First, before cairn's guarded agent holds a connection to the double: the guard checks each new connection.
describe('the outbound guard', () => {
  it('keeps the Stripe SDK off a loopback API base unless CAIRN_ALLOW_PRIVATE_ENDPOINTS opens it', async () => {
    const tenant = store.tenants.findOrCreate('guarded').tenant.id;
    const before = double.requests().length;
    const allowed = process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
    delete process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
    try {
      await expect(ensureCustomer(billing, tenant)).rejects.toThrow(/creating the tenant's Stripe customer: .*(may not reach|CAIRN_ALLOW_PRIVATE_ENDPOINTS|refus)/i);
    } finally {
      process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = allowed;
    }
    expect(double.requests().length).toBe(before);
    expect(store.billing.get(tenant)).toBeUndefined();
  });
});

describe('the Stripe customer', () => {
  it('is made once: a lost answer is retried under the same idempotency key, and a crash before recording finds the same one', async () => {
    const tenant = store.tenants.findOrCreate('lost-answer').tenant.id;
    double.loseNextAnswer('POST', '/v1/customers');
    const id = await ensureCustomer(billing, tenant);
    expect(await ensureCustomer(billing, tenant)).toBe(id);
    const crashed = store.tenants.findOrCreate('crashed').tenant.id;
    // cairn made the customer, then died before recording it.
    const made = await stripe.customers.create(customerParams(billing, crashed), { idempotencyKey: customerIdempotencyKey(crashed) });
    expect(await ensureCustomer(billing, crashed)).toBe(made.id);
    const customers = (await stripe.customers.list({ limit: 100 })).data;
    expect(customers.map((c) => c.id).sort()).toEqual([id, made.id].sort());
  });
});

describe('webhooks', () => {
  let subscriptionId = '';
  let tenant = '';

  it('apply checkout\'s events once each, and a replay changes nothing', async () => {
    tenant = store.tenants.findOrCreate('acme').tenant.id;
    double.deliverTo(null);
    const session = await openCheckout(billing, tenant, { plan: 'pro', successUrl: 'http://localhost/ok', cancelUrl: 'http://localhost/no' });
    const completion = await double.completeCheckout(session.id);
    subscriptionId = completion.subscription.id;
    for (const event of completion.events) {
      const { payload, header } = double.signedPayload(event);
      expect((await deliver(payload, header)).applied).toBe(true);
    }
    const processed = store.billing.processedEventCount();
    const account = store.billing.get(tenant);
    expect(account).toMatchObject({ plan: 'pro', status: 'trialing', hadTrial: true, subscriptionId });
    const first = completion.events[0]!;
    const again = double.signedPayload(first);
    expect(await deliver(again.payload, again.header)).toMatchObject({ applied: false, event_id: first.id });
    expect(store.billing.processedEventCount()).toBe(processed);
    expect(store.billing.get(tenant)).toEqual(account);
  });

  it('refuse a forged or stale signature before anything is read or written', () => {
    const event = double.events()[0]!;
    const processed = store.billing.processedEventCount();
    const fresh = double.signedPayload(event);
    const forged = stripe.webhooks.generateTestHeaderString({ payload: fresh.payload, secret: 'whsec_other' });
    expect(() => verifiedEvent(billing, Buffer.from(fresh.payload), forged)).toThrow(MalformedRequestError);
    const stale = double.signedPayload(event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(() => verifiedEvent(billing, Buffer.from(stale.payload), stale.header)).toThrow(/does not verify.*tolerance|Timestamp outside the tolerance zone/i);
    expect(() => verifiedEvent(billing, Buffer.from(fresh.payload), undefined)).toThrow('Stripe-Signature header is missing');
    expect(store.billing.processedEventCount()).toBe(processed);
  });

  it('record a trial ending soon on the tenant, a cancellation at the period\'s end and a plan switch', async () => {
    const deliverAll = async (events: Parameters<StripeDouble['redeliver']>[0][]): Promise<void> => {
      for (const event of events) {
        const { payload, header } = double.signedPayload(event);
        expect((await deliver(payload, header)).applied).toBe(true);
      }
    };
    await deliverAll((await double.endTrialSoon(subscriptionId)).events);
    const audit = store.auditLog.list(tenant, { limit: 50 }).items;
    expect(audit[0]).toMatchObject({ actor: 'stripe', action: 'billing.customer.subscription.trial_will_end', target: `subscription:${subscriptionId}` });
    const daysLeft = (Date.parse(store.billing.get(tenant)?.trialEndsAt ?? '') - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(2.9);
    expect(daysLeft).toBeLessThanOrEqual(3);
    await deliverAll((await double.scheduleCancel(subscriptionId)).events);
    expect(store.billing.get(tenant)?.cancelAtPeriodEnd).toBe(true);
    await deliverAll((await double.changePrice(subscriptionId, billing.settings.prices.business)).events);
    expect(store.billing.get(tenant)?.plan).toBe('business');
  });

  it('offer no second trial, and fall back to the free plan once the subscription is canceled', async () => {
    const { events } = await double.cancel(subscriptionId);
    for (const event of events) {
      const { payload, header } = double.signedPayload(event);
      await deliver(payload, header);
    }
    const account = store.billing.get(tenant);
    expect(account?.status).toBe('canceled');
    expect(effectivePlan(account, billing.plans).plan.id).toBe('free');
    const session = await openCheckout(billing, tenant, { plan: 'business', successUrl: 'http://localhost/ok', cancelUrl: 'http://localhost/no' });
    const completion = await double.completeCheckout(session.id);
    expect(completion.subscription.trial_end).toBeNull();
    expect(completion.subscription.status).toBe('active');
  });
});
