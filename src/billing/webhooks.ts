/**
 * @module Stripe's webhook deliveries (POST /billing/webhook): the raw body verified with the
 * SDK against CAIRN_STRIPE_WEBHOOK_SECRET with 5 minutes' tolerance (forged or stale: 400, nothing
 * changes); each event applied exactly once (its id stored in the same transaction as the
 * change; a replay is acknowledged and changes nothing). Events may arrive in any order, so the
 * subscription they concern is read again from Stripe and its latest state stored, whatever
 * the event said; events of one subscription are handled one at a time, so an earlier read never
 * overwrites a later one. Every event applied is recorded in the tenant's audit log (actor `stripe`).
 */
import type Stripe from 'stripe';
import { MalformedRequestError } from '../model/errors.js';
import { callStripe, type BillingOn } from './billing.js';
import { subscriptionState } from './subscription-state.js';

/** Stripe's own default: a signature older than this is refused as a replay. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export interface WebhookOutcome {
  received: true;
  event_id: string;
  /** False for a replay of an event already applied, and for events cairn does not act on. */
  applied: boolean;
  message: string;
}

/** The verified event, or a 400 saying why not. */
export function verifiedEvent(billing: BillingOn, raw: Buffer, signature: string | undefined): Stripe.Event {
  if (!signature) throw new MalformedRequestError('the Stripe-Signature header is missing; only Stripe\'s signed deliveries are taken');
  if (raw.length === 0) throw new MalformedRequestError('the body is empty; send the event as Stripe signed it (application/json)');
  try {
    return billing.stripe.webhooks.constructEvent(raw, signature, billing.settings.webhookSecret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (error) {
    throw new MalformedRequestError(`the Stripe-Signature does not verify: ${error instanceof Error ? error.message : String(error)}`);
  }
}

type SubscriptionRef = { id: string; customer: string | undefined; fromEvent: Stripe.Subscription | undefined };

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.id;
}

/** The subscription an event concerns, when it concerns one. */
function subscriptionOf(event: Stripe.Event): SubscriptionRef | undefined {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      const id = idOf(session.subscription);
      return id ? { id, customer: idOf(session.customer), fromEvent: undefined } : undefined;
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.trial_will_end': {
      const subscription = event.data.object;
      return { id: subscription.id, customer: idOf(subscription.customer), fromEvent: subscription };
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      const legacy = invoice as unknown as { subscription?: string | { id: string } | null };
      const id = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(legacy.subscription);
      return id ? { id, customer: idOf(invoice.customer), fromEvent: undefined } : undefined;
    }
    default:
      return undefined;
  }
}

/** The subscription's state now, read from Stripe (a deleted one Stripe no longer has: as the event said). */
async function latestSubscription(billing: BillingOn, ref: SubscriptionRef): Promise<Stripe.Subscription> {
  try {
    return await billing.stripe.subscriptions.retrieve(ref.id);
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'resource_missing';
    if (missing && ref.fromEvent) return ref.fromEvent;
    return callStripe(`reading subscription ${ref.id}`, () => Promise.reject(error instanceof Error ? error : new Error(String(error))));
  }
}

/** Applies a verified event once; see the module comment. */
export async function receiveEvent(billing: BillingOn, event: Stripe.Event): Promise<WebhookOutcome> {
  const ref = subscriptionOf(event);
  // Concurrent deliveries about one subscription: the later read of it is the later write.
  return ref ? billing.perSubscription.run(ref.id, () => applyEvent(billing, event, ref)) : applyEvent(billing, event, undefined);
}

async function applyEvent(billing: BillingOn, event: Stripe.Event, ref: SubscriptionRef | undefined): Promise<WebhookOutcome> {
  const { store } = billing;
  const replay = (): WebhookOutcome => ({ received: true, event_id: event.id, applied: false, message: `event ${event.id} was applied before; nothing changes` });
  if (store.billing.wasProcessed(event.id)) return replay();
  if (!ref) {
    const applied = store.billing.processOnce(event, () => undefined);
    return applied ? { received: true, event_id: event.id, applied: false, message: `${event.type} needs nothing of cairn` } : replay();
  }
  const subscription = await latestSubscription(billing, ref);
  const customer = idOf(subscription.customer) ?? ref.customer;
  const tenant = customer === undefined ? undefined : store.billing.tenantOfCustomer(customer);
  if (tenant === undefined) {
    const applied = store.billing.processOnce(event, () => undefined);
    return applied ? { received: true, event_id: event.id, applied: false, message: `customer ${customer ?? '(none)'} is not one cairn made; ignored` } : replay();
  }
  const state = subscriptionState(subscription, billing.settings.prices);
  const applied = store.billing.processOnce(event, () => {
    store.billing.saveSubscription(tenant, state);
    store.auditLog.append({ tenant, actor: 'stripe', action: `billing.${event.type}`, target: `subscription:${subscription.id}` });
    return tenant;
  });
  if (!applied) return replay();
  return { received: true, event_id: event.id, applied: true, message: `subscription ${subscription.id} is ${state.status} on the ${state.plan} plan` };
}
