/**
 * @module `/billing`: plans, the tenant's subscription and usage (any member of the tenant
 * reads them), Stripe Checkout and Billing Portal sessions (owners only), invoices, and
 * Stripe's webhook (mounted before authentication: its signature is its credential). With
 * billing off, what needs Stripe answers 404 naming the settings that turn it on.
 */
import { Router, type Request } from 'express';
import { BILLING_OFF, requireBilling, SELF_HOSTED_PLAN, type Billing } from '../../billing/billing.js';
import { openCheckout, openPortal } from '../../billing/checkout.js';
import { listInvoices } from '../../billing/invoices.js';
import { effectivePlan } from '../../billing/quota.js';
import { usageOf } from '../../billing/usage.js';
import { receiveEvent, verifiedEvent } from '../../billing/webhooks.js';
import type { Store } from '../../store/store.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { listBody, pageRequest } from '../pagination.js';
import { plansBody, subscriptionBody, usageBody } from '../records/billing-record.js';
import { validateBody } from '../request-validation.js';

interface CheckoutBody {
  plan: string;
  success_url: string;
  cancel_url: string;
}

interface PortalBody {
  return_url: string;
}

/** The raw bytes of a JSON body, kept by the body parser for signature checks. */
function rawBodyOf(req: Request): Buffer {
  const raw = (req as { rawBody?: unknown }).rawBody;
  return Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
}

/** Stripe's webhook: mounted before authentication. */
export function billingWebhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/billing/webhook', async (req, res) => {
    const billing = requireBilling(deps.billing ?? BILLING_OFF, 'POST /billing/webhook');
    const event = verifiedEvent(billing, rawBodyOf(req), req.get('Stripe-Signature'));
    res.status(200).json(await receiveEvent(billing, event));
  });
  return router;
}

function usedBy(store: Store, tenant: string): { servers: number; databases: number; apps: number } {
  return {
    servers: store.resources.countLive(tenant, 'Server'),
    databases: store.resources.countLive(tenant, 'Database'),
    apps: store.resources.countLive(tenant, 'App'),
  };
}

export function billingRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;
  const billing: Billing = deps.billing ?? BILLING_OFF;

  router.get('/billing/plans', (_req, res) => {
    allowed(res, 'read');
    res.json(plansBody(billing));
  });

  router.get('/billing/subscription', (_req, res) => {
    const principal = allowed(res, 'read');
    res.json(subscriptionBody(billing, store.billing.get(principal.tenant)));
  });

  router.get('/billing/usage', (_req, res) => {
    const principal = allowed(res, 'read');
    const used = usedBy(store, principal.tenant);
    if (!billing.enabled) {
      res.json(usageBody(usageOf({ plan: SELF_HOSTED_PLAN, limits: null, used })));
      return;
    }
    const account = store.billing.get(principal.tenant);
    const effective = effectivePlan(account, billing.plans);
    const period = account?.currentPeriodStart && account.currentPeriodEnd && effective.plan.id !== 'free'
      ? { start: account.currentPeriodStart, end: account.currentPeriodEnd }
      : undefined;
    res.json(usageBody(usageOf({ plan: effective.plan.id, limits: effective.plan.limits, used, period, createsRefused: effective.createsRefused })));
  });

  router.post('/billing/checkout', async (req, res) => {
    const principal = allowed(res, 'manage_billing');
    const on = requireBilling(billing, 'POST /billing/checkout');
    const body = validateBody<CheckoutBody>('post', '/billing/checkout', req.body);
    const session = await openCheckout(on, principal.tenant, { plan: body.plan, successUrl: body.success_url, cancelUrl: body.cancel_url });
    store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'billing.checkout.create', target: `checkout_session:${session.id}` });
    res.status(201).json(session);
  });

  router.post('/billing/portal', async (req, res) => {
    const principal = allowed(res, 'manage_billing');
    const on = requireBilling(billing, 'POST /billing/portal');
    const body = validateBody<PortalBody>('post', '/billing/portal', req.body);
    const session = await openPortal(on, principal.tenant, body.return_url);
    store.auditLog.append({ tenant: principal.tenant, actor: principal.subject, action: 'billing.portal.open', target: `customer:${store.billing.get(principal.tenant)?.customerId ?? ''}` });
    res.status(201).json(session);
  });

  router.get('/billing/invoices', async (req, res) => {
    const principal = allowed(res, 'read');
    const on = requireBilling(billing, 'GET /billing/invoices');
    res.json(listBody(await listInvoices(on, principal.tenant, pageRequest(req)), (invoice) => invoice));
  });

  return router;
}
