/**
 * @module The Stripe double's events and webhook deliveries: an event holds a snapshot of the
 * object it is about; each is POSTed as JSON to the configured endpoint with a
 * `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.payload" keyed by the webhook secret>`
 * header, signed the way Stripe signs, and every delivery is recorded with its status code.
 */
import { createHmac } from 'node:crypto';
import { nowSeconds, stripeId, type StripeObject } from './stripe-objects.js';

export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string | null;
  created: number;
  data: { object: StripeObject; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

export interface WebhookDelivery {
  eventId: string;
  type: string;
  url: string;
  /** The endpoint's HTTP status, or null when it could not be reached. */
  status: number | null;
  error?: string;
  deliveredAt: number;
}

export function newEvent(type: string, object: StripeObject, apiVersion: string | null, previousAttributes?: Record<string, unknown>): StripeEvent {
  const data: StripeEvent['data'] = { object: structuredClone(object) };
  if (previousAttributes) data.previous_attributes = structuredClone(previousAttributes);
  return {
    id: stripeId('evt_'),
    object: 'event',
    api_version: apiVersion,
    created: nowSeconds(),
    data,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** The `Stripe-Signature` header for `payload` at `timestamp` (seconds), as Stripe computes it. */
export function stripeSignatureHeader(payload: string, secret: string, timestamp: number): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** The body Stripe sends for an event: the event as pretty-printed JSON. */
export function eventPayload(event: StripeEvent): string {
  return JSON.stringify(event, null, 2);
}

/** Sends events to one endpoint, signed with the webhook secret, and keeps a record of each delivery. */
export class WebhookSender {
  private endpoint: string | null = null;
  private readonly log: WebhookDelivery[] = [];

  constructor(private readonly secret: string) {}

  deliverTo(url: string | null): void {
    if (url !== null) new URL(url);
    this.endpoint = url;
  }

  signedPayload(event: StripeEvent, options: { timestamp?: number } = {}): { payload: string; header: string } {
    const payload = eventPayload(event);
    return { payload, header: stripeSignatureHeader(payload, this.secret, options.timestamp ?? nowSeconds()) };
  }

  /** POSTs the event to the endpoint (nothing when none is set) and records the answer. */
  async deliver(event: StripeEvent, options: { timestamp?: number } = {}): Promise<WebhookDelivery | null> {
    if (!this.endpoint) return null;
    const { payload, header } = this.signedPayload(event, options);
    const delivery: WebhookDelivery = { eventId: event.id, type: event.type, url: this.endpoint, status: null, deliveredAt: nowSeconds() };
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      delivery.status = response.status;
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    this.log.push(delivery);
    return delivery;
  }

  deliveries(): WebhookDelivery[] {
    return this.log.map((delivery) => ({ ...delivery }));
  }
}
