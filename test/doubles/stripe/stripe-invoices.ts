/**
 * @module The Stripe double's invoices, shaped like Stripe's fixture and the SDK's `Invoice`
 * type: a finalized invoice for one billing period of a subscription, with one line per item,
 * and the two ways it leaves `open` (paid, or a failed payment attempt that leaves it open).
 */
import { listOf, nowSeconds, stripeId, type StripeObject } from './stripe-objects.js';

export interface InvoiceFields {
  customer: StripeObject;
  subscription: StripeObject;
  billingReason: 'subscription_create' | 'subscription_cycle';
  /** Nothing is owed for a period inside the trial. */
  inTrial: boolean;
  periodStart: number;
  periodEnd: number;
  /** The invoice's number within the customer (1, 2, ...). */
  sequence: number;
}

interface SubscriptionItemView {
  id: string;
  price: StripeObject;
  quantity: number;
}

/** A finalized (`open`) invoice for the subscription's items over one period. */
export function newInvoice(fields: InvoiceFields): StripeObject {
  const id = stripeId('in_');
  const created = nowSeconds();
  const items = (fields.subscription.items as { data: SubscriptionItemView[] }).data;
  const lines = items.map((item) => {
    const amount = fields.inTrial ? 0 : Number(item.price.unit_amount) * item.quantity;
    const productName = String(item.price.nickname ?? item.price.product);
    return {
      id: stripeId('il_'),
      object: 'line_item',
      amount,
      currency: item.price.currency,
      description: fields.inTrial ? `Trial period for ${productName}` : `${item.quantity} × ${productName}`,
      discount_amounts: [],
      discountable: true,
      discounts: [],
      invoice: id,
      livemode: false,
      metadata: {},
      parent: {
        type: 'subscription_item_details',
        invoice_item_details: null,
        subscription_item_details: {
          invoice_item: null,
          proration: false,
          proration_details: { credited_items: null },
          subscription: fields.subscription.id,
          subscription_item: item.id,
        },
      },
      period: { start: fields.periodStart, end: fields.periodEnd },
      pretax_credit_amounts: [],
      pricing: { type: 'price_details', price_details: { price: item.price.id, product: item.price.product }, unit_amount_decimal: item.price.unit_amount_decimal },
      quantity: item.quantity,
      quantity_decimal: String(item.quantity),
      subscription: fields.subscription.id,
      subtotal: amount,
      taxes: [],
    };
  });
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const customer = fields.customer;
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'cairn (Stripe double)',
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: null,
    billing_reason: fields.billingReason,
    collection_method: 'charge_automatically',
    created,
    currency: String(fields.subscription.currency),
    custom_fields: null,
    customer: customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: customer.email,
    customer_name: customer.name,
    customer_phone: customer.phone,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: created,
    ending_balance: 0,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: `https://invoice.stripe.com/i/acct_double/test_${id}`,
    invoice_pdf: `https://pay.stripe.com/invoice/acct_double/test_${id}/pdf`,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: listOf(lines, `/v1/invoices/${id}/lines`),
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: `${String(customer.invoice_prefix)}-${String(fields.sequence).padStart(4, '0')}`,
    on_behalf_of: null,
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { metadata: fields.subscription.metadata, subscription: fields.subscription.id },
    },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: fields.periodEnd,
    period_start: fields.periodStart,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: 'open',
    status_transitions: { finalized_at: created, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: created,
  };
}

/** The invoice paid in full now. */
export function markInvoicePaid(invoice: StripeObject): void {
  const transitions = invoice.status_transitions as Record<string, number | null>;
  invoice.status = 'paid';
  invoice.amount_paid = invoice.amount_due;
  invoice.amount_remaining = 0;
  invoice.attempted = true;
  invoice.attempt_count = Number(invoice.attempt_count) + (Number(invoice.amount_due) > 0 ? 1 : 0);
  invoice.next_payment_attempt = null;
  transitions.paid_at = nowSeconds();
}

/** A charge attempt on the invoice declined: it stays open, and Stripe retries in three days. */
export function markPaymentFailed(invoice: StripeObject): void {
  invoice.attempted = true;
  invoice.attempt_count = Number(invoice.attempt_count) + 1;
  invoice.next_payment_attempt = nowSeconds() + 3 * 86_400;
}
