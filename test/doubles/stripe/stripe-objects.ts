/**
 * @module The Stripe double's objects, shaped field for field like Stripe's canonical fixtures
 * (fixtures3.json) and the SDK's types: customers, prices, checkout and billing portal sessions,
 * subscriptions with their items, invoices with their lines, and events. Plain JSON values; the
 * double's state holds them and its routes answer copies.
 */
import { randomBytes } from 'node:crypto';

export type StripeObject = Record<string, unknown> & { id: string; object: string; created: number };

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A Stripe-looking id: the prefix, then 24 random alphanumerics. */
export function stripeId(prefix: string): string {
  return prefix + [...randomBytes(24)].map((byte) => ALPHABET[byte % ALPHABET.length]).join('');
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function listOf<T>(data: T[], url: string, hasMore = false): { object: 'list'; data: T[]; has_more: boolean; url: string } {
  return { object: 'list', data, has_more: hasMore, url };
}

export function newCustomer(fields: { email: string | null; name: string | null; description: string | null; phone: string | null; metadata: Record<string, string> }): StripeObject {
  return {
    id: stripeId('cus_'),
    object: 'customer',
    address: null,
    balance: 0,
    created: nowSeconds(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: fields.description,
    discount: null,
    email: fields.email,
    invoice_prefix: randomBytes(4).toString('hex').toUpperCase().slice(0, 7),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: fields.metadata,
    name: fields.name,
    next_invoice_sequence: 1,
    phone: fields.phone,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

export interface PriceFields {
  currency: string;
  unitAmount: number;
  product: string;
  recurring: { interval: 'day' | 'week' | 'month' | 'year'; intervalCount: number } | null;
  nickname: string | null;
  lookupKey: string | null;
  metadata: Record<string, string>;
}

export function newPrice(fields: PriceFields): StripeObject {
  return {
    id: stripeId('price_'),
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created: nowSeconds(),
    currency: fields.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: fields.lookupKey,
    metadata: fields.metadata,
    nickname: fields.nickname,
    product: fields.product,
    recurring: fields.recurring && {
      interval: fields.recurring.interval,
      interval_count: fields.recurring.intervalCount,
      meter: null,
      usage_type: 'licensed',
      trial_period_days: null,
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: fields.recurring ? 'recurring' : 'one_time',
    unit_amount: fields.unitAmount,
    unit_amount_decimal: String(fields.unitAmount),
  };
}

export interface CheckoutFields {
  customer: string | null;
  customerEmail: string | null;
  lineItems: { price: StripeObject; quantity: number }[];
  successUrl: string;
  cancelUrl: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
}

/** A checkout session in subscription mode, open for 24 hours. `line_items` is kept aside by the double (Stripe serves it only expanded). */
export function newCheckoutSession(fields: CheckoutFields): StripeObject {
  const id = stripeId('cs_test_');
  const created = nowSeconds();
  const currency = (fields.lineItems[0]?.price.currency as string | undefined) ?? 'usd';
  const subtotal = fields.lineItems.reduce((sum, item) => sum + Number(item.price.unit_amount) * item.quantity, 0);
  return {
    id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: subtotal,
    amount_total: subtotal,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: fields.cancelUrl,
    client_reference_id: fields.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created,
    currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: fields.customer,
    customer_account: null,
    customer_creation: fields.customer ? null : 'always',
    customer_details: null,
    customer_email: fields.customerEmail,
    discounts: [],
    expires_at: created + 24 * 3600,
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: fields.metadata,
    mode: 'subscription',
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: fields.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: `https://checkout.stripe.com/c/pay/${id}`,
    wallet_options: null,
  };
}

export function newBillingPortalSession(fields: { customer: string; returnUrl: string | null; configuration: string }): StripeObject {
  return {
    id: stripeId('bps_'),
    object: 'billing_portal.session',
    configuration: fields.configuration,
    created: nowSeconds(),
    customer: fields.customer,
    customer_account: null,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: fields.returnUrl,
    url: `https://billing.stripe.com/p/session/test_${stripeId('')}`,
  };
}

const INTERVAL_SECONDS = { day: 86_400, week: 7 * 86_400, month: 30 * 86_400, year: 365 * 86_400 } as const;

/** The end of one billing period of `price` starting at `start` (months counted as 30 days). */
export function periodEnd(price: StripeObject, start: number): number {
  const recurring = price.recurring as { interval: keyof typeof INTERVAL_SECONDS; interval_count: number } | null;
  if (!recurring) return start;
  return start + INTERVAL_SECONDS[recurring.interval] * recurring.interval_count;
}

export interface SubscriptionFields {
  customer: string;
  items: { price: StripeObject; quantity: number }[];
  trialEnd: number | null;
  metadata: Record<string, string>;
}

export function newSubscription(fields: SubscriptionFields): StripeObject {
  const id = stripeId('sub_');
  const created = nowSeconds();
  const firstPrice = fields.items[0]?.price;
  const periodStart = created;
  const itemPeriodEnd = fields.trialEnd ?? (firstPrice ? periodEnd(firstPrice, periodStart) : periodStart);
  const items = fields.items.map((item) => ({
    id: stripeId('si_'),
    object: 'subscription_item',
    billing_thresholds: null,
    created,
    current_period_end: itemPeriodEnd,
    current_period_start: periodStart,
    current_trial: null,
    discounts: [],
    metadata: {},
    plan: planOf(item.price),
    price: item.price,
    quantity: item.quantity,
    subscription: id,
    tax_rates: [],
  }));
  return {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: itemPeriodEnd === periodStart ? created : fields.trialEnd ?? created,
    billing_cycle_anchor_config: null,
    billing_mode: { type: 'classic' },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: 'charge_automatically',
    created,
    currency: firstPrice?.currency ?? 'usd',
    customer: fields.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: listOf(items, `/v1/subscription_items?subscription=${id}`),
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: fields.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: created,
    status: fields.trialEnd ? 'trialing' : 'active',
    test_clock: null,
    transfer_data: null,
    trial_end: fields.trialEnd,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: fields.trialEnd ? created : null,
  };
}

/** The legacy `plan` twin of a price that subscription items still carry. */
export function planOf(price: StripeObject): Record<string, unknown> {
  const recurring = price.recurring as { interval: string; interval_count: number; trial_period_days: number | null } | null;
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: price.billing_scheme,
    created: price.created,
    currency: price.currency,
    interval: recurring?.interval ?? 'month',
    interval_count: recurring?.interval_count ?? 1,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: recurring?.trial_period_days ?? null,
    usage_type: 'licensed',
  };
}
