/**
 * @module The tenant's invoices, read from Stripe (GET /billing/invoices), in API.md's fields and
 * paged with cairn's cursor convention on top of Stripe's `starting_after`: the cursor holds the
 * last invoice id of the page before. A tenant without a customer has none.
 */
import type Stripe from 'stripe';
import { ValidationError } from '../model/errors.js';
import { decodeCursor, encodeCursor, type Page, type PageRequest } from '../store/paging.js';
import { callStripe, type BillingOn } from './billing.js';

/** The most invoices Stripe lists in one request. */
const STRIPE_PAGE_MAX = 100;

export interface InvoiceRecord {
  id: string;
  number: string | null;
  status: string | null;
  amount_due_cents: number;
  currency: string;
  created_at: string;
  hosted_invoice_url: string | null;
  pdf_url: string | null;
}

export function invoiceRecord(invoice: Stripe.Invoice): InvoiceRecord {
  return {
    id: invoice.id ?? '',
    number: invoice.number,
    status: invoice.status,
    amount_due_cents: invoice.amount_due,
    currency: invoice.currency,
    created_at: new Date(invoice.created * 1000).toISOString(),
    hosted_invoice_url: invoice.hosted_invoice_url ?? null,
    pdf_url: invoice.invoice_pdf ?? null,
  };
}

export async function listInvoices(billing: BillingOn, tenant: string, request: PageRequest): Promise<Page<InvoiceRecord>> {
  const customer = billing.store.billing.get(tenant)?.customerId;
  if (!customer) return { items: [], nextCursor: null };
  const after = request.cursor === undefined ? undefined : String(decodeCursor(request.cursor, 1)[0]);
  if (after !== undefined && !/^in_\w+$/.test(after)) {
    throw new ValidationError('cursor is not one this list gave', [{ pointer: '/cursor', message: 'is not one this list gave' }]);
  }
  // Stripe answers at most 100 a request; cairn's pages go to 200.
  const items: InvoiceRecord[] = [];
  let cursor = after;
  let hasMore = true;
  while (hasMore && items.length < request.limit) {
    const limit = Math.min(STRIPE_PAGE_MAX, request.limit - items.length);
    const page = await callStripe('listing the tenant\'s invoices', () =>
      billing.stripe.invoices.list({ customer, limit, ...(cursor ? { starting_after: cursor } : {}) }),
    );
    items.push(...page.data.map(invoiceRecord));
    hasMore = page.has_more && page.data.length > 0;
    cursor = items.at(-1)?.id;
  }
  const last = items.at(-1);
  return { items, nextCursor: hasMore && last ? encodeCursor([last.id]) : null };
}
