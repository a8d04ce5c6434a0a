/**
 * @module The Stripe API routes the double serves (the ones cairn's billing calls): customers,
 * prices, checkout sessions in subscription mode, billing portal sessions, subscriptions and
 * invoices. Each validates its parameters as Stripe does (a bad one is refused naming it,
 * changing nothing) and answers Stripe's object shapes.
 */
import { newBillingPortalSession, newCheckoutSession, newCustomer, newPrice, stripeId, type StripeObject } from './stripe-objects.js';
import type { StripeState } from './stripe-state.js';
import {
  expandPaths,
  invalidParam,
  metadataOf,
  optionalArray,
  optionalInteger,
  optionalObject,
  optionalString,
  requiredString,
  type StripeParams,
} from './stripe-wire.js';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** Matched against the path; its groups are the path's ids. */
  pattern: RegExp;
  handle(params: StripeParams, ids: string[]): StripeObject | Record<string, unknown>;
}

const INTERVALS = ['day', 'week', 'month', 'year'] as const;
const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused'];
const INVOICE_STATUSES = ['draft', 'open', 'paid', 'uncollectible', 'void'];

function url(params: StripeParams, name: string, required: true): string;
function url(params: StripeParams, name: string, required: false): string | null;
function url(params: StripeParams, name: string, required: boolean): string | null {
  const value = required ? requiredString(params, name) : (optionalString(params, name) ?? null);
  if (value === null) return null;
  if (!URL.canParse(value) || !/^https?:/.test(value)) throw invalidParam(name, `Invalid URL: ${name} must be an absolute http(s) URL (got '${value}').`);
  return value;
}

/** `param` must be one of `allowed` when given. */
function oneOf(params: StripeParams, name: string, allowed: readonly string[]): string | undefined {
  const value = optionalString(params, name);
  if (value !== undefined && !allowed.includes(value)) throw invalidParam(name, `Invalid ${name}: must be one of ${allowed.join(', ')} (got '${value}').`);
  return value;
}

function createPrice(state: StripeState, params: StripeParams): StripeObject {
  const currency = requiredString(params, 'currency').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalidParam('currency', `Invalid currency: '${currency}' is not a three-letter ISO code.`);
  const unitAmount = optionalInteger(params, 'unit_amount', { min: 0, max: 99_999_999 });
  if (unitAmount === undefined) throw invalidParam('unit_amount', 'Missing required param: unit_amount (the double supports per-unit prices only).');
  const productData = optionalObject(params, 'product_data');
  let product = optionalString(params, 'product');
  if (product === undefined && productData === undefined) throw invalidParam('product', 'Missing required param: product or product_data.');
  if (productData !== undefined) {
    if (product !== undefined) throw invalidParam('product_data', 'You may only specify one of these parameters: product, product_data.');
    requiredString(productData, 'name');
    product = stripeId('prod_');
  }
  const recurringParams = optionalObject(params, 'recurring');
  let recurring = null;
  if (recurringParams) {
    const interval = requiredString(recurringParams, 'interval');
    if (!(INTERVALS as readonly string[]).includes(interval)) throw invalidParam('recurring[interval]', `Invalid recurring[interval]: must be one of ${INTERVALS.join(', ')}.`);
    const intervalCount = optionalInteger(recurringParams, 'interval_count', { min: 1, max: 36 }) ?? 1;
    recurring = { interval: interval as (typeof INTERVALS)[number], intervalCount };
  }
  return state.prices.add(newPrice({
    currency,
    unitAmount,
    product: product ?? '',
    recurring,
    nickname: optionalString(params, 'nickname') ?? null,
    lookupKey: optionalString(params, 'lookup_key') ?? null,
    metadata: metadataOf(params),
  }));
}

function createCheckoutSession(state: StripeState, params: StripeParams): StripeObject {
  const mode = requiredString(params, 'mode');
  if (mode !== 'subscription') throw invalidParam('mode', `Invalid mode: the Stripe double supports mode 'subscription' only (got '${mode}').`);
  const customerId = optionalString(params, 'customer');
  if (customerId !== undefined) state.customers.get(customerId, 'customer');
  const customerEmail = optionalString(params, 'customer_email') ?? null;
  if (customerId !== undefined && customerEmail !== null) throw invalidParam('customer_email', 'You may only specify one of these parameters: customer, customer_email.');
  const lineItemParams = optionalArray(params, 'line_items') ?? [];
  if (lineItemParams.length === 0) throw invalidParam('line_items', 'In subscription mode, line_items must name at least one recurring price.');
  const lineItems = lineItemParams.map((item, i) => {
    if (typeof item !== 'object' || Array.isArray(item)) throw invalidParam(`line_items[${i}]`, `Invalid line_items[${i}]: must be a hash.`);
    const price = state.prices.get(requiredString(item, 'price'), `line_items[${i}][price]`);
    if (!price.recurring) throw invalidParam(`line_items[${i}][price]`, `The price '${price.id}' is not recurring; subscription mode needs recurring prices.`);
    return { price, quantity: optionalInteger(item, 'quantity', { min: 1, max: 999_999 }) ?? 1 };
  });
  const subscriptionData = optionalObject(params, 'subscription_data') ?? {};
  const trialPeriodDays = optionalInteger(subscriptionData, 'trial_period_days', { min: 1, max: 730 }) ?? null;
  const clientReferenceId = optionalString(params, 'client_reference_id') ?? null;
  if (clientReferenceId !== null && clientReferenceId.length > 200) throw invalidParam('client_reference_id', 'Invalid client_reference_id: at most 200 characters.');
  const session = newCheckoutSession({
    customer: customerId ?? null,
    customerEmail,
    lineItems,
    successUrl: url(params, 'success_url', true),
    cancelUrl: url(params, 'cancel_url', false),
    clientReferenceId,
    metadata: metadataOf(params),
  });
  state.checkoutLineItems.set(session.id, lineItems);
  state.checkoutTerms.set(session.id, { trialPeriodDays, subscriptionMetadata: metadataOf(subscriptionData) });
  return state.checkoutSessions.add(session);
}

/** The routes, given the state they read and change. */
export function stripeRoutes(state: StripeState, portalConfiguration: string): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/v1\/customers$/,
      handle: (params) => state.customers.add(newCustomer({
        email: optionalString(params, 'email') ?? null,
        name: optionalString(params, 'name') ?? null,
        description: optionalString(params, 'description') ?? null,
        phone: optionalString(params, 'phone') ?? null,
        metadata: metadataOf(params),
      })),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/customers$/,
      handle: (params) => {
        const email = optionalString(params, 'email');
        return state.customers.page(params, '/v1/customers', (customer) => email === undefined || customer.email === email);
      },
    },
    { method: 'GET', pattern: /^\/v1\/customers\/([^/]+)$/, handle: (_params, [id]) => state.customers.get(id ?? '') },
    { method: 'POST', pattern: /^\/v1\/prices$/, handle: (params) => createPrice(state, params) },
    { method: 'GET', pattern: /^\/v1\/prices\/([^/]+)$/, handle: (_params, [id]) => state.prices.get(id ?? '') },
    { method: 'POST', pattern: /^\/v1\/checkout\/sessions$/, handle: (params) => createCheckoutSession(state, params) },
    {
      method: 'GET',
      pattern: /^\/v1\/checkout\/sessions\/([^/]+)$/,
      handle: (params, [id]) => {
        const session = state.checkoutSessions.get(id ?? '');
        if (!expandPaths(params).includes('line_items')) return session;
        const items = (state.checkoutLineItems.get(session.id) ?? []).map((item) => ({
          id: stripeId('li_'),
          object: 'item',
          amount_subtotal: Number(item.price.unit_amount) * item.quantity,
          amount_total: Number(item.price.unit_amount) * item.quantity,
          currency: item.price.currency,
          price: item.price,
          quantity: item.quantity,
        }));
        return { ...session, line_items: { object: 'list', data: items, has_more: false, url: `/v1/checkout/sessions/${session.id}/line_items` } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/billing_portal\/sessions$/,
      handle: (params) => {
        const customer = state.customers.get(requiredString(params, 'customer'), 'customer');
        const returnUrl = url(params, 'return_url', false);
        return state.portalSessions.add(newBillingPortalSession({ customer: customer.id, returnUrl, configuration: portalConfiguration }));
      },
    },
    { method: 'GET', pattern: /^\/v1\/subscriptions\/([^/]+)$/, handle: (_params, [id]) => state.subscriptions.get(id ?? '') },
    {
      method: 'GET',
      pattern: /^\/v1\/subscriptions$/,
      handle: (params) => {
        const customer = optionalString(params, 'customer');
        const status = oneOf(params, 'status', [...SUBSCRIPTION_STATUSES, 'all', 'ended']);
        return state.subscriptions.page(params, '/v1/subscriptions', (subscription) => {
          if (customer !== undefined && subscription.customer !== customer) return false;
          if (status === 'all') return true;
          if (status === 'ended') return subscription.status === 'canceled' || subscription.status === 'incomplete_expired';
          // Without a status, Stripe lists every subscription that is not canceled.
          return status === undefined ? subscription.status !== 'canceled' : subscription.status === status;
        });
      },
    },
    { method: 'GET', pattern: /^\/v1\/invoices\/([^/]+)$/, handle: (_params, [id]) => state.invoices.get(id ?? '') },
    {
      method: 'GET',
      pattern: /^\/v1\/invoices$/,
      handle: (params) => {
        const customer = optionalString(params, 'customer');
        const subscription = optionalString(params, 'subscription');
        const status = oneOf(params, 'status', INVOICE_STATUSES);
        return state.invoices.page(params, '/v1/invoices', (invoice) => {
          const parent = invoice.parent as { subscription_details: { subscription: string } | null } | null;
          return (customer === undefined || invoice.customer === customer)
            && (subscription === undefined || parent?.subscription_details?.subscription === subscription)
            && (status === undefined || invoice.status === status);
        });
      },
    },
  ];
}
