/**
 * @module The Stripe double driven by the unmodified `stripe` SDK through a whole billing
 * journey (prices, an idempotent customer, checkout with a trial, signed webhook deliveries, a
 * failed and recovered payment, paged invoices), its refusals in Stripe's error shapes, and its
 * objects checked against Stripe's fixtures and the SDK's types.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectShapedLike } from './fixture-shape.js';
import { startStripeDouble, type StripeDouble } from './stripe-double.js';

const SECRET_KEY = 'sk_test_cairnDouble123';
const WEBHOOK_SECRET = 'whsec_cairnDoubleSecret';

/** An object as the double sends it, with the list fields the shape checks descend into. */
type WireObject = Record<string, unknown> & { items: { data: unknown[] }; lines: { data: unknown[] } };

interface Received {
  body: string;
  signature: string;
}

/** A webhook endpoint on loopback that keeps each raw body and its signature header. */
async function startReceiver(status = 200): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(request.headers['stripe-signature']) });
      response.writeHead(status).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/billing/webhook`, received };
}

describe('the Stripe double, driven by the stripe SDK', () => {
  let double: StripeDouble;
  let stripe: Stripe;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    double = await startStripeDouble({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    stripe = new Stripe(SECRET_KEY, double.sdkOptions);
    receiver = await startReceiver();
    double.deliverTo(receiver.url);
  });

  afterAll(async () => {
    await double.stop();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('carries a tenant from checkout with a 7-day trial to a failed and recovered payment, with signed deliveries in Stripe\'s order', async () => {
    const pro = await stripe.prices.create({ currency: 'usd', unit_amount: 2900, recurring: { interval: 'month' }, product_data: { name: 'Pro' }, nickname: 'pro' });
    const team = await stripe.prices.create({ currency: 'usd', unit_amount: 9900, recurring: { interval: 'month' }, product_data: { name: 'Team' } });
    expect((await stripe.prices.retrieve(pro.id)).recurring?.interval).toBe('month');
    expect(team.unit_amount).toBe(9900);

    const params = { email: 'owner@acme.test', metadata: { tenant: 'acme' } };
    const first = await stripe.customers.create(params, { idempotencyKey: 'customer-acme' });
    const again = await stripe.customers.create(params, { idempotencyKey: 'customer-acme' });
    expect(again.id).toBe(first.id);
    expect((await stripe.customers.list({ limit: 100 })).data.map((c) => c.id)).toEqual([first.id]);
    expect((await stripe.customers.retrieve(first.id) as Stripe.Customer).metadata).toEqual({ tenant: 'acme' });

    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: first.id,
      line_items: [{ price: pro.id, quantity: 1 }],
      subscription_data: { trial_period_days: 7 },
      success_url: 'https://cairn.test/billing/done',
      cancel_url: 'https://cairn.test/billing',
      client_reference_id: 'acme',
      metadata: { tenant: 'acme' },
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(session.url).toContain(session.id);
    expect(session.status).toBe('open');

    const completion = await double.completeCheckout(session.id);
    expect(completion.events.map((event) => event.type)).toEqual(['checkout.session.completed', 'customer.subscription.created', 'invoice.paid']);

    const subscription = await stripe.subscriptions.retrieve(completion.subscription.id);
    expect(subscription.status).toBe('trialing');
    const sevenDays = 7 * 86_400;
    expect(Math.abs((subscription.trial_end ?? 0) - (Date.now() / 1000 + sevenDays))).toBeLessThan(60);
    expect(subscription.items.data[0]?.price.id).toBe(pro.id);
    const firstInvoice = await stripe.invoices.retrieve(subscription.latest_invoice as string);
    expect([firstInvoice.status, firstInvoice.amount_due, firstInvoice.amount_paid]).toEqual(['paid', 0, 0]);
    const completed = await stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription'] });
    expect((completed.subscription as Stripe.Subscription).id).toBe(subscription.id);
    expect(completed.client_reference_id).toBe('acme');

    const failed = await double.failPayment(subscription.id);
    expect(failed.events.map((event) => event.type)).toEqual(['invoice.payment_failed', 'customer.subscription.updated']);
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('past_due');
    const open = await stripe.invoices.retrieve(failed.invoice.id);
    expect([open.status, open.amount_due, open.attempt_count]).toEqual(['open', 2900, 1]);

    const recovered = await double.recoverPayment(subscription.id);
    expect(recovered.events.map((event) => event.type)).toEqual(['invoice.paid', 'customer.subscription.updated']);
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active');
    expect((await stripe.invoices.retrieve(failed.invoice.id)).status).toBe('paid');

    // Every delivery arrived in order, each verified by the SDK with the endpoint's secret.
    const types = receiver.received.map(({ body, signature }) => stripe.webhooks.constructEvent(body, signature, WEBHOOK_SECRET, 300).type);
    expect(types).toEqual([
      'checkout.session.completed', 'customer.subscription.created', 'invoice.paid',
      'invoice.payment_failed', 'customer.subscription.updated',
      'invoice.paid', 'customer.subscription.updated',
    ]);
    expect(double.deliveries().map((delivery) => delivery.status)).toEqual(Array(7).fill(200));
    const created = stripe.webhooks.constructEvent(receiver.received[1]?.body ?? '', receiver.received[1]?.signature ?? '', WEBHOOK_SECRET);
    expect((created.data.object as Stripe.Subscription).status).toBe('trialing');

    const page1 = await stripe.invoices.list({ customer: first.id, limit: 1 });
    expect(page1.has_more).toBe(true);
    const page2 = await stripe.invoices.list({ customer: first.id, limit: 1, starting_after: page1.data[0]?.id });
    expect(page2.has_more).toBe(false);
    expect([...page1.data, ...page2.data].map((invoice) => invoice.id)).toEqual([failed.invoice.id, firstInvoice.id]);
    expect((await stripe.subscriptions.list({ customer: first.id })).data.map((s) => s.id)).toEqual([subscription.id]);

    const portal = await stripe.billingPortal.sessions.create({ customer: first.id, return_url: 'https://cairn.test/billing' });
    expect(portal.id).toMatch(/^bps_/);
    expect(portal.url).toMatch(/^https:\/\//);
  });

  it('answers a wrong secret key with 401, which the SDK throws as StripeAuthenticationError', async () => {
    const wrong = new Stripe('sk_test_notTheKey', double.sdkOptions);
    const error: unknown = await wrong.customers.list().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect((error as Stripe.errors.StripeError).statusCode).toBe(401);
  });

  it('refuses an idempotency key reused with other parameters, creating nothing', async () => {
    const before = (await stripe.customers.list({ limit: 100 })).data.length;
    await stripe.customers.create({ email: 'a@reuse.test' }, { idempotencyKey: 'reused' });
    const error: unknown = await stripe.customers.create({ email: 'b@reuse.test' }, { idempotencyKey: 'reused' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect((await stripe.customers.list({ limit: 100 })).data.length).toBe(before + 1);
  });

  it('answers an unknown id with 404 resource_missing, and a bad parameter with 400 naming it', async () => {
    const missing: unknown = await stripe.subscriptions.retrieve('sub_doesNotExist').catch((thrown: unknown) => thrown);
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect([(missing as Stripe.errors.StripeError).statusCode, (missing as Stripe.errors.StripeError).code]).toEqual([404, 'resource_missing']);

    const badPrice: unknown = await stripe.checkout.sessions.create({
      mode: 'subscription', line_items: [{ price: 'price_nope', quantity: 1 }], success_url: 'https://cairn.test/ok',
    }).catch((thrown: unknown) => thrown);
    expect([(badPrice as Stripe.errors.StripeError).statusCode, (badPrice as Stripe.errors.StripeError).param]).toEqual([400, 'line_items[0][price]']);

    const badLimit: unknown = await stripe.invoices.list({ limit: 1000 }).catch((thrown: unknown) => thrown);
    expect((badLimit as Stripe.errors.StripeError).param).toBe('limit');
  });

  it('signs a replayed event at the time asked, so an old delivery fails the SDK\'s 5-minute tolerance', () => {
    const event = double.events()[0];
    expect(event).toBeDefined();
    const old = double.signedPayload(event!, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(() => stripe.webhooks.constructEvent(old.payload, old.header, WEBHOOK_SECRET, 300)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    const fresh = double.signedPayload(event!);
    expect(stripe.webhooks.constructEvent(fresh.payload, fresh.header, WEBHOOK_SECRET, 300).id).toBe(event!.id);
    expect(() => stripe.webhooks.constructEvent(fresh.payload, fresh.header, 'whsec_other', 300)).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('cancels a subscription with customer.subscription.deleted; a canceled one leaves the default list', async () => {
    const price = await stripe.prices.create({ currency: 'eur', unit_amount: 500, recurring: { interval: 'month' }, product_data: { name: 'Small' } });
    const customer = await stripe.customers.create({ email: 'cancel@acme.test' });
    const session = await stripe.checkout.sessions.create({ mode: 'subscription', customer: customer.id, line_items: [{ price: price.id }], success_url: 'https://cairn.test/ok' });
    const { subscription, invoice } = await double.completeCheckout(session.id);
    expect([subscription.status, invoice.amount_paid]).toEqual(['active', 500]);
    const trialWarning = double.endTrialSoon(subscription.id);
    await expect(trialWarning).rejects.toThrow(/not trialing/);
    const { events } = await double.cancel(subscription.id);
    expect(events.map((event) => event.type)).toEqual(['customer.subscription.deleted']);
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('canceled');
    expect((await stripe.subscriptions.list({ customer: customer.id })).data).toEqual([]);
    expect((await stripe.subscriptions.list({ customer: customer.id, status: 'all' })).data).toHaveLength(1);
  });

  it('plays a plan switch and a cancel at period end from the portal as customer.subscription.updated', async () => {
    const small = await stripe.prices.create({ currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' }, product_data: { name: 'Small' } });
    const large = await stripe.prices.create({ currency: 'usd', unit_amount: 5000, recurring: { interval: 'month' }, product_data: { name: 'Large' } });
    const customer = await stripe.customers.create({ email: 'portal@acme.test' });
    const session = await stripe.checkout.sessions.create({ mode: 'subscription', customer: customer.id, line_items: [{ price: small.id }], success_url: 'https://cairn.test/ok' });
    const { subscription } = await double.completeCheckout(session.id);

    const switched = await double.changePrice(subscription.id, large.id);
    expect(switched.events.map((event) => [event.type, (event.data.previous_attributes?.items as Stripe.ApiList<Stripe.SubscriptionItem>).data[0]?.price.id]))
      .toEqual([['customer.subscription.updated', small.id]]);
    expect((await stripe.subscriptions.retrieve(subscription.id)).items.data[0]?.price.id).toBe(large.id);

    const scheduled = await double.scheduleCancel(subscription.id);
    expect(scheduled.events[0]?.data.previous_attributes).toEqual({ cancel_at_period_end: false, cancel_at: null });
    const served = await stripe.subscriptions.retrieve(subscription.id);
    expect([served.status, served.cancel_at_period_end, served.cancel_at]).toEqual(['active', true, served.items.data[0]?.current_period_end]);
  });

  it('expands ids into objects on request, and refuses a path it cannot expand, naming expand', async () => {
    const price = await stripe.prices.create({ currency: 'usd', unit_amount: 700, recurring: { interval: 'month' }, product_data: { name: 'Expand' } });
    const customer = await stripe.customers.create({ email: 'expand@acme.test' });
    const session = await stripe.checkout.sessions.create({ mode: 'subscription', customer: customer.id, line_items: [{ price: price.id, quantity: 3 }], success_url: 'https://cairn.test/ok' });
    const withItems = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] });
    expect(withItems.line_items?.data.map((item) => [item.price?.id, item.quantity, item.amount_total])).toEqual([[price.id, 3, 2100]]);
    const { subscription } = await double.completeCheckout(session.id);

    const expanded = await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice', 'customer'] });
    expect([(expanded.latest_invoice as Stripe.Invoice).object, (expanded.customer as Stripe.Customer).email]).toEqual(['invoice', 'expand@acme.test']);
    const invoices = await stripe.invoices.list({ customer: customer.id, expand: ['data.customer'] });
    expect(invoices.data.map((invoice) => (invoice.customer as Stripe.Customer).id)).toEqual([customer.id]);
    // Unexpanded, the same fields stay ids.
    expect((await stripe.subscriptions.retrieve(subscription.id)).customer).toBe(customer.id);

    const refused: unknown = await stripe.subscriptions.retrieve(subscription.id, { expand: ['status'] }).catch((thrown: unknown) => thrown);
    expect([(refused as Stripe.errors.StripeError).statusCode, (refused as Stripe.errors.StripeError).param]).toEqual([400, 'expand']);
  });

  it('serves objects shaped like Stripe\'s fixtures and the SDK\'s types, as sent on the wire', async () => {
    // The SDK turns some fields into richer values (decimals), so the shapes are checked on the JSON the double sends.
    const wire = async (path: string): Promise<WireObject> => {
      const response = await fetch(`${double.url}${path}`, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
      expect(response.status).toBe(200);
      return (await response.json()) as WireObject;
    };
    const price = await stripe.prices.create({ currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' }, product_data: { name: 'Shape' } });
    const customer = await stripe.customers.create({ email: 'shape@acme.test', metadata: { tenant: 'shape' } });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription', customer: customer.id, line_items: [{ price: price.id }], subscription_data: { trial_period_days: 7 }, success_url: 'https://cairn.test/ok',
    });
    const portal = await stripe.billingPortal.sessions.create({ customer: customer.id });
    const { subscription, events } = await double.completeCheckout(session.id);
    await double.endTrialSoon(subscription.id);
    const { invoice } = await double.failPayment(subscription.id);

    expectShapedLike(await wire(`/v1/prices/${price.id}`), 'price');
    expectShapedLike(await wire(`/v1/customers/${customer.id}`), 'customer');
    expectShapedLike(await wire(`/v1/checkout/sessions/${session.id}`), 'checkout.session');
    expectShapedLike(double.object(portal.id), 'billing_portal.session');
    const servedSubscription = await wire(`/v1/subscriptions/${subscription.id}`);
    expectShapedLike(servedSubscription, 'subscription');
    expectShapedLike(servedSubscription.items.data[0], 'subscription_item');
    const servedInvoice = await wire(`/v1/invoices/${invoice.id}`);
    expectShapedLike(servedInvoice, 'invoice');
    expectShapedLike(servedInvoice.lines.data[0], 'line_item');
    for (const event of [...events, ...double.events().slice(-3)]) expectShapedLike(JSON.parse(double.signedPayload(event).payload), 'event');
  });

  it('keeps a customer created once when its answers are lost: a retry with the same idempotency key gets the same customer', async () => {
    // stripe-node retries a closed connection once even with maxNetworkRetries 0; losing two answers makes the call fail.
    double.loseNextAnswer('POST', '/v1/customers');
    double.loseNextAnswer('POST', '/v1/customers');
    const lost: unknown = await stripe.customers.create({ email: 'crash@acme.test' }, { idempotencyKey: 'customer-crash' }).catch((thrown: unknown) => thrown);
    expect(lost).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const retried = await stripe.customers.create({ email: 'crash@acme.test' }, { idempotencyKey: 'customer-crash' });
    expect((await stripe.customers.list({ email: 'crash@acme.test' })).data.map((c) => c.id)).toEqual([retried.id]);
    expect(double.requests().filter((r) => r.idempotencyKey === 'customer-crash').map((r) => r.replayed)).toEqual([false, true, true]);

    // One lost answer: the SDK's own retry carries the key it made for the first attempt.
    double.loseNextAnswer('POST', '/v1/customers');
    const customer = await stripe.customers.create({ email: 'sdk-retry@acme.test' });
    expect((await stripe.customers.list({ email: 'sdk-retry@acme.test' })).data.map((c) => c.id)).toEqual([customer.id]);
    expect(double.requests().slice(-3, -1).map((r) => [r.path, r.replayed])).toEqual([['/v1/customers', false], ['/v1/customers', true]]);
  });

  it('records each delivery\'s status, including an endpoint refusing or unreachable, and redelivers out of order', async () => {
    const refusing = await startReceiver(400);
    try {
      const [first, second] = double.events();
      double.deliverTo(refusing.url);
      expect((await double.redeliver(second!))?.status).toBe(400);
      expect((await double.redeliver(first!))?.status).toBe(400);
      expect(refusing.received.map(({ body, signature }) => stripe.webhooks.constructEvent(body, signature, WEBHOOK_SECRET).id)).toEqual([second!.id, first!.id]);
      double.deliverTo('http://127.0.0.1:9/unreachable');
      const unreachable = await double.redeliver(first!);
      expect([unreachable?.status, typeof unreachable?.error]).toEqual([null, 'string']);
      expect(double.deliveries().slice(-3).map((delivery) => delivery.status)).toEqual([400, 400, null]);
    } finally {
      double.deliverTo(receiver.url);
      await new Promise((resolve) => refusing.server.close(resolve));
    }
  });
});

describe('expectShapedLike', () => {
  const customer = { id: 'cus_1', object: 'customer', balance: 0, created: 1, default_source: null, description: null, email: null, invoice_settings: {}, livemode: false, metadata: {}, shipping: null };

  it('accepts an object with the fixture\'s fields and the SDK\'s required ones', () => {
    expectShapedLike(customer, 'customer');
  });

  it('fails on a field Stripe does not have, a required field missing, a wrong type, or a null the SDK forbids', () => {
    expect(() => expectShapedLike({ ...customer, plan_name: 'pro' }, 'customer')).toThrow(/plan_name: not a field/);
    const { email: _email, ...withoutEmail } = customer;
    expect(() => expectShapedLike(withoutEmail, 'customer')).toThrow(/email: required by the SDK/);
    expect(() => expectShapedLike({ ...customer, created: '2026-11-26' }, 'customer')).toThrow(/created: string where the fixture has number/);
    expect(() => expectShapedLike({ ...customer, metadata: null }, 'customer')).toThrow(/metadata: null, which the SDK/);
  });
});
