/**
 * @module Billing end to end: a real `cairn serve` with billing on, talking through the unmodified
 * `stripe` SDK to the Stripe double on loopback, and the double's signed webhook deliveries
 * reaching cairn's webhook. The journey from the free plan's limit through checkout, a trial, a
 * failed and a recovered payment; forged, stale, replayed and out-of-order webhooks; owners
 * only for checkout and the portal; invoices paged; the quota on `cairn apply`; billing off.
 */
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeDouble, type StripeDouble } from './doubles/stripe/stripe-double.js';
import type { StripeEvent } from './doubles/stripe/stripe-webhooks.js';
import { contractProblems, startApiServer, type ApiServer } from './support/api-server.js';
import { runCairn } from './support/cairn-process.js';
import { startGitServer } from './support/git-server.js';
import { Store } from '../src/store/store.js';

const SECRET_KEY = 'sk_test_cairnBilling1';
const WEBHOOK_SECRET = 'whsec_cairnBillingSecret';
const PASSWORD = 'billing password';
const DAY_MS = 86_400_000;
const RETURN = { success_url: 'http://localhost:8080/billing/done', cancel_url: 'http://localhost:8080/billing' };

let double: StripeDouble;
let stripe: Stripe;
let api: ApiServer;
let billingEnv: NodeJS.ProcessEnv;
const tokens: Record<'owner' | 'admin' | 'member' | 'viewer', string> = { owner: '', admin: '', member: '', viewer: '' };
let providerId = '';
let subscriptionId = '';

beforeAll(async () => {
  double = await startStripeDouble({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  stripe = new Stripe(SECRET_KEY, double.sdkOptions);
  const pro = await stripe.prices.create({ currency: 'usd', unit_amount: 2900, recurring: { interval: 'month' }, product_data: { name: 'cairn pro' } });
  const business = await stripe.prices.create({ currency: 'usd', unit_amount: 9900, recurring: { interval: 'month' }, product_data: { name: 'cairn business' } });
  billingEnv = {
    CAIRN_STRIPE_SECRET_KEY: SECRET_KEY,
    CAIRN_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CAIRN_STRIPE_API_BASE: double.url,
    CAIRN_STRIPE_PRICE_PRO: pro.id,
    CAIRN_STRIPE_PRICE_BUSINESS: business.id,
  };
  api = await startApiServer(billingEnv);
  for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
    await api.addUser(`${role}@example.com`, PASSWORD, role);
    tokens[role] = (await api.login(`${role}@example.com`, PASSWORD)).access_token;
  }
  double.deliverTo(`${api.base}/api/v1/billing/webhook`);
  const provider = await api.call('POST', '/api/v1/providers', { token: tokens.owner, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 'sandbox-token' } } });
  expect(provider.status).toBe(201);
  providerId = provider.body.id;
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await double?.stop();
});

const createServer = (name: string) =>
  api.call('POST', '/api/v1/servers', { token: tokens.member, body: { name, provider_id: providerId, region: 'eu-1', size: 'small' } });

const subscription = async (): Promise<Record<string, unknown>> => (await api.call<Record<string, unknown>>('GET', '/api/v1/billing/subscription', { token: tokens.viewer })).body;

/** POSTs a body with a Stripe-Signature header to cairn's webhook, as Stripe would. */
const postWebhook = (payload: string, header: string) =>
  api.call('POST', '/api/v1/billing/webhook', { raw: { contentType: 'application/json; charset=utf-8', text: payload }, headers: { 'Stripe-Signature': header } });

describe('billing with Stripe', () => {
  it('lists the free and paid plans with their limits and 7-day trials', async () => {
    const plans = await api.call('GET', '/api/v1/billing/plans', { token: tokens.viewer });
    expect(plans.status).toBe(200);
    expect(plans.body.billing_enabled).toBe(true);
    expect(plans.body.items.map((p: { id: string; trial_days: number }) => [p.id, p.trial_days])).toEqual([['free', 0], ['pro', 7], ['business', 7]]);
    expect(plans.body.items[0].limits).toEqual({ servers: 2, databases: 1, apps: 2 });
  });

  it('takes a free tenant from its server limit through checkout, a trial, a failed and a recovered payment', async () => {
    expect((await createServer('web-1')).status).toBe(202);
    expect((await createServer('web-2')).status).toBe(202);
    const refused = await createServer('web-3');
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('quota_exceeded');
    expect(refused.body.detail).toContain('the free plan allows 2 servers; this would make 3');
    const usage = await api.call('GET', '/api/v1/billing/usage', { token: tokens.viewer });
    expect(usage.body.plan).toBe('free');
    expect(usage.body.resources.servers).toEqual({ used: 2, limit: 2 });
    expect(usage.body.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ resource: 'servers', threshold: 100 })]));

    const checkout = await api.call('POST', '/api/v1/billing/checkout', { token: tokens.owner, body: { plan: 'pro', ...RETURN } });
    expect(checkout.status).toBe(201);
    expect(checkout.body).toEqual({ id: expect.stringMatching(/^cs_test_/), url: expect.stringContaining('http') });
    const customerCreates = double.requests().filter((r) => r.method === 'POST' && r.path === '/v1/customers');
    expect(customerCreates).toHaveLength(1);
    expect(customerCreates[0]?.idempotencyKey).toMatch(/^cairn-customer-/);
    const session = double.object(checkout.body.id);
    expect(session).toMatchObject({ mode: 'subscription', client_reference_id: expect.any(String), success_url: RETURN.success_url });

    const completed = await double.completeCheckout(checkout.body.id);
    subscriptionId = completed.subscription.id;
    expect(double.deliveries().map((d) => d.status)).toEqual(completed.events.map(() => 200));
    const trialing = await subscription();
    expect(trialing).toMatchObject({ plan: 'pro', status: 'trialing', cancel_at_period_end: false });
    const trialDays = (Date.parse(String(trialing.trial_ends_at)) - Date.now()) / DAY_MS;
    expect(trialDays).toBeGreaterThan(6.99);
    expect(trialDays).toBeLessThanOrEqual(7);
    expect((await createServer('web-3')).status).toBe(202);

    await double.failPayment(subscriptionId);
    expect(await subscription()).toMatchObject({ plan: 'pro', status: 'past_due' });
    const pastDue = await createServer('web-4');
    expect(pastDue.status).toBe(402);
    expect(pastDue.body.detail).toContain('past due');
    const servers = await api.call('GET', '/api/v1/servers', { token: tokens.viewer });
    expect(servers.body.items.map((s: { name: string }) => s.name).sort()).toEqual(['web-1', 'web-2', 'web-3']);

    await double.recoverPayment(subscriptionId);
    expect(await subscription()).toMatchObject({ plan: 'pro', status: 'active' });
    expect((await createServer('web-4')).status).toBe(202);
    expect(double.deliveries().every((d) => d.status === 200)).toBe(true);
  });

  it('refuses forged and stale webhooks, and applies a replayed one once, changing nothing', async () => {
    const before = await subscription();
    const failed = double.events().find((e) => e.type === 'invoice.payment_failed') as StripeEvent;
    // A replay of the past payment failure, signed now: acknowledged, not applied again.
    const replay = double.signedPayload(failed);
    const replayed = await postWebhook(replay.payload, replay.header);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ applied: false, event_id: failed.id });
    // Forged: signed with another secret, or the body changed after signing.
    const forgedHeader = stripe.webhooks.generateTestHeaderString({ payload: replay.payload, secret: 'whsec_notTheSecret' });
    expect((await postWebhook(replay.payload, forgedHeader)).status).toBe(400);
    const tampered = replay.payload.replace('"invoice.payment_failed"', '"invoice.paid"');
    const tamperedAnswer = await postWebhook(tampered, replay.header);
    expect(tamperedAnswer.status).toBe(400);
    expect(tamperedAnswer.body.code).toBe('malformed_request');
    expect((await postWebhook(replay.payload, '')).status).toBe(400);
    // Stale: a genuine signature more than 5 minutes old.
    const stale = await double.redeliver(failed, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale?.status).toBe(400);
    expect(await subscription()).toEqual(before);
  });

  it('keeps the latest state when events arrive out of order', async () => {
    double.deliverTo(null);
    await double.failPayment(subscriptionId);
    await double.recoverPayment(subscriptionId);
    const held = double.events().slice(-6);
    double.deliverTo(`${api.base}/api/v1/billing/webhook`);
    // The recovery's events first, then the failure's: each re-reads the subscription, which is active.
    const order = [...held.filter((e) => e.type === 'invoice.paid'), ...held.filter((e) => e.type !== 'invoice.paid')];
    for (const event of order) expect((await double.redeliver(event))?.status).toBe(200);
    expect(await subscription()).toMatchObject({ status: 'active' });
    expect((await createServer('web-5')).status).toBe(202);
  });

  it('lets only owners open checkout or the portal', async () => {
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const checkout = await api.call('POST', '/api/v1/billing/checkout', { token: tokens[role], body: { plan: 'business', ...RETURN } });
      expect(checkout.status, role).toBe(403);
      const portal = await api.call('POST', '/api/v1/billing/portal', { token: tokens[role], body: { return_url: RETURN.success_url } });
      expect(portal.status, role).toBe(403);
    }
    const portal = await api.call('POST', '/api/v1/billing/portal', { token: tokens.owner, body: { return_url: RETURN.success_url } });
    expect(portal.status).toBe(201);
    expect(portal.body.url).toEqual(expect.stringContaining('http'));
    // Owners' billing actions are in the tenant's audit log, like other owner actions.
    const store = Store.open(api.dataDir, { env: billingEnv });
    try {
      const tenant = store.tenants.findByName('default')?.id ?? '';
      const actions = store.auditLog.list(tenant, { limit: 200 }).items.filter((e) => e.actor.startsWith('user:')).map((e) => e.action);
      expect(actions).toEqual(expect.arrayContaining(['billing.checkout.create', 'billing.portal.open']));
    } finally {
      store.close();
    }
  });

  it('refuses return URLs off cairn\'s origin, naming the field, and a second checkout while subscribed', async () => {
    const elsewhere = await api.call('POST', '/api/v1/billing/checkout', { token: tokens.owner, body: { plan: 'pro', success_url: 'https://evil.example/steal', cancel_url: RETURN.cancel_url } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors).toEqual([expect.objectContaining({ pointer: '/success_url' })]);
    const again = await api.call('POST', '/api/v1/billing/checkout', { token: tokens.owner, body: { plan: 'business', ...RETURN } });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('/billing/portal');
  });

  it('lists the tenant\'s invoices from Stripe, paged with cursors', async () => {
    const first = await api.call('GET', '/api/v1/billing/invoices?limit=2', { token: tokens.viewer });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.items[0]).toMatchObject({ id: expect.stringMatching(/^in_/), currency: 'usd', created_at: expect.any(String) });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await api.call('GET', `/api/v1/billing/invoices?limit=200&cursor=${first.body.next_cursor}`, { token: tokens.viewer });
    const ids = [...first.body.items, ...rest.body.items].map((i: { id: string }) => i.id);
    const atStripe = (await stripe.invoices.list({ customer: String(double.object(subscriptionId)?.customer), limit: 100 })).data.map((i) => i.id);
    expect(ids).toEqual(atStripe);
    expect(rest.body.next_cursor).toBeNull();
  });
});

describe('quotas on other paths', () => {
  it('rejects a git revision past the plan whole, with the plan and limit as the source\'s reason', async () => {
    const gitServer = await startGitServer();
    try {
      const usage = (await api.call('GET', '/api/v1/billing/usage', { token: tokens.viewer })).body;
      const { used, limit } = usage.resources.servers as { used: number; limit: number };
      const files: Record<string, string> = { 'deploy/provider.yaml': `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: git-sandbox\nspec:\n  vendor: sandbox\n` };
      for (let i = 1; i <= limit - used + 1; i++) {
        files[`deploy/g-${i}.yaml`] = `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: g-${i}\nspec:\n  provider: git-sandbox\n  region: eu-1\n  size: small\n`;
      }
      const repo = gitServer.createRepository('over-quota', files);
      const created = await api.call('POST', '/api/v1/sources', { token: tokens.member, body: { name: 'over-quota', url: repo.url, ref: 'main', path: 'deploy', interval_seconds: 3600 } });
      expect(created.status).toBe(201);
      const source = await api.until(`/api/v1/sources/${created.body.id}`, tokens.viewer, (s: { conditions: Array<{ reason: string }>; errors: string[] }) => s.conditions[0]?.reason === 'QuotaExceeded', 30_000);
      expect(source.errors).toEqual([`the ${usage.plan} plan allows ${limit} servers; this would make ${limit + 1} (upgrade with POST /billing/checkout, or delete some first)`]);
      const servers = await api.call('GET', '/api/v1/servers?limit=200', { token: tokens.viewer });
      expect(servers.body.items).toHaveLength(used);
      const providers = await api.call('GET', '/api/v1/providers', { token: tokens.viewer });
      expect(providers.body.items.map((p: { name: string }) => p.name)).not.toContain('git-sandbox');
    } finally {
      await gitServer.stop();
    }
  });

  it('refuses a cairn apply past the free plan, with the plan and limit, writing nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-billing-apply-'));
    try {
      const servers = ['a', 'b', 'c'].map((name) => `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ${name}\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n`);
      writeFileSync(join(root, 'stack.yaml'), [`apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n`, ...servers].join('---\n'));
      const dataDir = join(root, 'state');
      const applied = await runCairn(['apply', '-f', join(root, 'stack.yaml'), '--auto-approve', '--data-dir', dataDir], { env: billingEnv });
      expect(applied.code).toBe(1);
      expect(applied.stderr).toContain('the free plan allows 2 servers; this would make 3');
      // All or nothing: not the two servers within the limit, nor the provider.
      const listed = await runCairn(['get', 'servers', '--data-dir', dataDir], { env: billingEnv });
      expect(listed.stdout).not.toMatch(/^(a|b|c)\s+default/m);
      const providers = await runCairn(['get', 'providers', '--data-dir', dataDir], { env: billingEnv });
      expect(providers.stdout).not.toMatch(/^sandbox\s/m);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('billing off', () => {
  let off: ApiServer;
  let owner = '';
  beforeAll(async () => {
    off = await startApiServer();
    await off.addUser('owner@example.com', PASSWORD, 'owner');
    owner = (await off.login('owner@example.com', PASSWORD)).access_token;
  }, 60_000);
  afterAll(async () => off?.stop());

  it('puts every tenant on the unlimited self-hosted plan and answers what needs Stripe with 404 naming the settings', async () => {
    const plans = await off.call('GET', '/api/v1/billing/plans', { token: owner });
    expect(plans.body).toMatchObject({ billing_enabled: false, items: [{ id: 'self-hosted', limits: { servers: null, databases: null, apps: null } }] });
    expect(plans.body.message).toContain('CAIRN_STRIPE_SECRET_KEY');
    expect((await off.call('GET', '/v1/billing/plans', { token: owner })).body).toEqual(plans.body);
    expect((await off.call('GET', '/api/v1/billing/subscription', { token: owner })).body).toMatchObject({ plan: 'self-hosted', status: 'none' });
    for (const [method, path, body] of [
      ['POST', '/api/v1/billing/checkout', { plan: 'pro', ...RETURN }],
      ['POST', '/api/v1/billing/portal', { return_url: RETURN.success_url }],
      ['GET', '/api/v1/billing/invoices', undefined],
    ] as const) {
      const answer = await off.call(method, path, { token: owner, ...(body ? { body } : {}) });
      expect(answer.status, path).toBe(404);
      expect(answer.body.detail, path).toContain('CAIRN_STRIPE_SECRET_KEY');
      expect(answer.body.detail, path).toContain('CAIRN_STRIPE_PRICE_PRO');
    }
    const webhook = await off.call('POST', '/api/v1/billing/webhook', { raw: { contentType: 'application/json', text: '{}' }, headers: { 'Stripe-Signature': 't=1,v1=x' } });
    expect(webhook.status).toBe(404);
    const provider = await off.call('POST', '/api/v1/providers', { token: owner, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 'sandbox-token' } } });
    for (const name of ['s-1', 's-2', 's-3']) {
      const made = await off.call('POST', '/api/v1/servers', { token: owner, body: { name, provider_id: provider.body.id, region: 'eu-1', size: 'small' } });
      expect(made.status).toBe(202);
    }
  });
});

describe('the contract', () => {
  it('answered every request above as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
