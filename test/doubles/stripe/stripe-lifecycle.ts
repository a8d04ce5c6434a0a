/**
 * @module What happens at Stripe outside the API calls cairn makes, for tests to set off: a
 * customer completes checkout, a renewal payment fails and is recovered, a trial nears its end,
 * a subscription is canceled. Each changes the double's objects as Stripe would and emits the
 * events Stripe sends, in Stripe's order, delivered to the webhook endpoint one after another.
 */
import { markInvoicePaid, markPaymentFailed, newInvoice } from './stripe-invoices.js';
import { newCustomer, newSubscription, nowSeconds, periodEnd, planOf, type StripeObject } from './stripe-objects.js';
import type { StripeState } from './stripe-state.js';
import { newEvent, type StripeEvent, type WebhookSender } from './stripe-webhooks.js';

export interface CheckoutCompletion {
  session: StripeObject;
  subscription: StripeObject;
  invoice: StripeObject;
  events: StripeEvent[];
}

/** A test control refused: the object is not in a state where that can happen. */
export class StripeDoubleControlError extends Error {}

export class StripeLifecycle {
  private readonly emitted: StripeEvent[] = [];

  constructor(
    private readonly state: StripeState,
    private readonly sender: WebhookSender,
    private readonly apiVersion: () => string | null,
  ) {}

  events(): StripeEvent[] {
    return this.emitted.map((event) => structuredClone(event));
  }

  /** The customer paid (or started a trial) on the session's page: subscription, first invoice, and `checkout.session.completed`, `customer.subscription.created`, `invoice.paid`. */
  async completeCheckout(sessionId: string): Promise<CheckoutCompletion> {
    const session = this.known(this.state.checkoutSessions, sessionId);
    if (session.status !== 'open') throw new StripeDoubleControlError(`checkout session ${sessionId} is ${String(session.status)}, not open`);
    const terms = this.state.checkoutTerms.get(session.id) ?? { trialPeriodDays: null, subscriptionMetadata: {} };
    const customer = typeof session.customer === 'string'
      ? this.state.customers.get(session.customer)
      : this.state.customers.add(newCustomer({ email: session.customer_email as string | null, name: null, description: null, phone: null, metadata: {} }));
    const items = this.state.checkoutLineItems.get(session.id) ?? [];
    const trialEnd = terms.trialPeriodDays ? nowSeconds() + terms.trialPeriodDays * 86_400 : null;
    const subscription = this.state.subscriptions.add(newSubscription({ customer: customer.id, items, trialEnd, metadata: terms.subscriptionMetadata }));
    const start = Number(subscription.start_date);
    const invoice = this.newInvoiceFor(subscription, customer, {
      billingReason: 'subscription_create',
      inTrial: trialEnd !== null,
      periodStart: start,
      periodEnd: start,
    });
    markInvoicePaid(invoice);
    subscription.latest_invoice = invoice.id;
    Object.assign(session, {
      customer: customer.id,
      status: 'complete',
      payment_status: trialEnd !== null ? 'no_payment_required' : 'paid',
      subscription: subscription.id,
    });
    const events = await this.emitAll([
      ['checkout.session.completed', session],
      ['customer.subscription.created', subscription],
      ['invoice.paid', invoice],
    ]);
    return { session: structuredClone(session), subscription: structuredClone(subscription), invoice: structuredClone(invoice), events };
  }

  /** A renewal charge declined: a new open invoice for the next period, the subscription `past_due`; `invoice.payment_failed`, `customer.subscription.updated`. */
  async failPayment(subscriptionId: string): Promise<{ invoice: StripeObject; events: StripeEvent[] }> {
    const subscription = this.live(subscriptionId);
    const customer = this.state.customers.get(String(subscription.customer));
    const price = (subscription.items as { data: { price: StripeObject }[] }).data[0]?.price;
    const start = Number(subscription.trial_end ?? subscription.start_date);
    const invoice = this.newInvoiceFor(subscription, customer, {
      billingReason: 'subscription_cycle',
      inTrial: false,
      periodStart: start,
      periodEnd: price ? periodEnd(price, start) : start,
    });
    markPaymentFailed(invoice);
    const previous = { status: subscription.status, latest_invoice: subscription.latest_invoice };
    Object.assign(subscription, { status: 'past_due', latest_invoice: invoice.id });
    if (subscription.trial_end !== null && Number(subscription.trial_end) > nowSeconds()) subscription.trial_end = nowSeconds();
    const events = await this.emitAll([
      ['invoice.payment_failed', invoice],
      ['customer.subscription.updated', subscription, previous],
    ]);
    return { invoice: structuredClone(invoice), events };
  }

  /** The subscription's open invoice paid (a retry succeeded, or the customer paid it): `invoice.paid`, the subscription `active`, `customer.subscription.updated`. */
  async recoverPayment(subscriptionId: string): Promise<{ invoice: StripeObject; events: StripeEvent[] }> {
    const subscription = this.live(subscriptionId);
    const open = this.state.invoices.all().filter((invoice) => invoice.status === 'open' && this.subscriptionOf(invoice) === subscription.id);
    const invoice = open.at(-1);
    if (!invoice) throw new StripeDoubleControlError(`subscription ${subscriptionId} has no open invoice to pay`);
    return this.payInvoice(invoice.id);
  }

  /** Pays one open invoice; its subscription becomes `active` when it was not. */
  async payInvoice(invoiceId: string): Promise<{ invoice: StripeObject; events: StripeEvent[] }> {
    const invoice = this.known(this.state.invoices, invoiceId);
    if (invoice.status !== 'open') throw new StripeDoubleControlError(`invoice ${invoiceId} is ${String(invoice.status)}, not open`);
    markInvoicePaid(invoice);
    const batch: [string, StripeObject, Record<string, unknown>?][] = [['invoice.paid', invoice]];
    const subscriptionId = this.subscriptionOf(invoice);
    const subscription = subscriptionId ? this.state.subscriptions.find(subscriptionId) : undefined;
    if (subscription && subscription.status !== 'active' && subscription.status !== 'canceled') {
      const previous = { status: subscription.status };
      subscription.status = 'active';
      batch.push(['customer.subscription.updated', subscription, previous]);
    }
    return { invoice: structuredClone(invoice), events: await this.emitAll(batch) };
  }

  /** Stripe's notice three days before a trial ends: `customer.subscription.trial_will_end`. */
  async endTrialSoon(subscriptionId: string): Promise<{ events: StripeEvent[] }> {
    const subscription = this.live(subscriptionId);
    if (subscription.status !== 'trialing') throw new StripeDoubleControlError(`subscription ${subscriptionId} is ${String(subscription.status)}, not trialing`);
    subscription.trial_end = nowSeconds() + 3 * 86_400;
    for (const item of (subscription.items as { data: Record<string, unknown>[] }).data) item.current_period_end = subscription.trial_end;
    return { events: await this.emitAll([['customer.subscription.trial_will_end', subscription]]) };
  }

  /** The customer canceled in the portal, effective at the period's end: `cancel_at_period_end`, `customer.subscription.updated`. */
  async scheduleCancel(subscriptionId: string): Promise<{ subscription: StripeObject; events: StripeEvent[] }> {
    const subscription = this.live(subscriptionId);
    const item = (subscription.items as { data: { current_period_end: number }[] }).data[0];
    const previous = { cancel_at_period_end: subscription.cancel_at_period_end, cancel_at: subscription.cancel_at };
    Object.assign(subscription, {
      cancel_at_period_end: true,
      cancel_at: item?.current_period_end ?? nowSeconds(),
      cancellation_details: { comment: null, feedback: null, reason: 'cancellation_requested' },
    });
    const events = await this.emitAll([['customer.subscription.updated', subscription, previous]]);
    return { subscription: structuredClone(subscription), events };
  }

  /** The customer switched plans in the portal: the subscription's item now bills `priceId`; `customer.subscription.updated`. */
  async changePrice(subscriptionId: string, priceId: string): Promise<{ subscription: StripeObject; events: StripeEvent[] }> {
    const subscription = this.live(subscriptionId);
    const price = this.known(this.state.prices, priceId);
    if (!price.recurring) throw new StripeDoubleControlError(`price ${priceId} is not recurring`);
    const items = subscription.items as { data: Record<string, unknown>[] };
    const previous = { items: structuredClone(items) };
    for (const item of items.data) Object.assign(item, { price, plan: planOf(price) });
    const events = await this.emitAll([['customer.subscription.updated', subscription, previous]]);
    return { subscription: structuredClone(subscription), events };
  }

  /** The subscription canceled now (from the portal or the dashboard): `customer.subscription.deleted`. */
  async cancel(subscriptionId: string): Promise<{ subscription: StripeObject; events: StripeEvent[] }> {
    const subscription = this.live(subscriptionId);
    const now = nowSeconds();
    Object.assign(subscription, {
      status: 'canceled',
      canceled_at: now,
      ended_at: now,
      cancellation_details: { comment: null, feedback: null, reason: 'cancellation_requested' },
    });
    const events = await this.emitAll([['customer.subscription.deleted', subscription]]);
    return { subscription: structuredClone(subscription), events };
  }

  /** Emits and delivers each event in order, the next only once the previous delivery is answered. */
  private async emitAll(batch: [string, StripeObject, Record<string, unknown>?][]): Promise<StripeEvent[]> {
    const events = batch.map(([type, object, previous]) => newEvent(type, object, this.apiVersion(), previous));
    this.emitted.push(...events);
    for (const event of events) await this.sender.deliver(event);
    return events.map((event) => structuredClone(event));
  }

  private newInvoiceFor(subscription: StripeObject, customer: StripeObject, fields: { billingReason: 'subscription_create' | 'subscription_cycle'; inTrial: boolean; periodStart: number; periodEnd: number }): StripeObject {
    const sequence = Number(customer.next_invoice_sequence);
    customer.next_invoice_sequence = sequence + 1;
    return this.state.invoices.add(newInvoice({ customer, subscription, sequence, ...fields }));
  }

  private subscriptionOf(invoice: StripeObject): string | undefined {
    return (invoice.parent as { subscription_details: { subscription: string } | null } | null)?.subscription_details?.subscription;
  }

  private known(collection: { get(id: string): StripeObject; kind: string }, id: string): StripeObject {
    try {
      return collection.get(id);
    } catch {
      throw new StripeDoubleControlError(`the Stripe double holds no ${collection.kind} ${id}`);
    }
  }

  private live(subscriptionId: string): StripeObject {
    const subscription = this.known(this.state.subscriptions, subscriptionId);
    if (subscription.status === 'canceled') throw new StripeDoubleControlError(`subscription ${subscriptionId} is canceled`);
    return subscription;
  }
}
