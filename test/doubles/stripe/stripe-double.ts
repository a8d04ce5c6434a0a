/**
 * @module A stateful Stripe double on loopback that the unmodified `stripe` SDK talks to
 * (`new Stripe(secretKey, { host, port, protocol: 'http' })`): Stripe's wire format (form bodies
 * in bracket notation, Bearer secret keys, `Idempotency-Key`, Stripe's error JSON), the routes
 * cairn's billing calls, and test controls that play what happens at Stripe (checkout completed,
 * payments failing and recovering, trials ending, cancellations) with signed webhook deliveries.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { StripeLifecycle, type CheckoutCompletion } from './stripe-lifecycle.js';
import { stripeId, type StripeObject } from './stripe-objects.js';
import { stripeRoutes } from './stripe-routes.js';
import { StripeState } from './stripe-state.js';
import { WebhookSender, type StripeEvent, type WebhookDelivery } from './stripe-webhooks.js';
import { expandPaths, parseStripeParams, StripeRequestError, type StripeParams } from './stripe-wire.js';

export interface StripeDoubleOptions {
  /** The only key the double accepts (`sk_test_...`). */
  secretKey: string;
  /** The endpoint secret deliveries are signed with (`whsec_...`); one is made when not given. */
  webhookSecret?: string;
}

export interface StripeDoubleRequest {
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
  /** True when the answer was the one stored under its idempotency key. */
  replayed: boolean;
}

export interface StripeDouble {
  /** `http://127.0.0.1:<port>` */
  url: string;
  host: string;
  port: number;
  webhookSecret: string;
  /** SDK options that point `new Stripe(secretKey, options)` at the double. */
  sdkOptions: { host: string; port: number; protocol: 'http'; maxNetworkRetries: number };
  stop(): Promise<void>;
  /** Where events are POSTed (null: kept, not sent). */
  deliverTo(url: string | null): void;
  completeCheckout(sessionId: string): Promise<CheckoutCompletion>;
  failPayment(subscriptionId: string): Promise<{ invoice: StripeObject; events: StripeEvent[] }>;
  recoverPayment(subscriptionId: string): Promise<{ invoice: StripeObject; events: StripeEvent[] }>;
  payInvoice(invoiceId: string): Promise<{ invoice: StripeObject; events: StripeEvent[] }>;
  endTrialSoon(subscriptionId: string): Promise<{ events: StripeEvent[] }>;
  cancel(subscriptionId: string): Promise<{ subscription: StripeObject; events: StripeEvent[] }>;
  /** Canceled in the portal at the period's end (`cancel_at_period_end: true`, `customer.subscription.updated`). */
  scheduleCancel(subscriptionId: string): Promise<{ subscription: StripeObject; events: StripeEvent[] }>;
  /** Switched to another recurring price in the portal (`customer.subscription.updated`). */
  changePrice(subscriptionId: string, priceId: string): Promise<{ subscription: StripeObject; events: StripeEvent[] }>;
  /** Every event emitted so far, oldest first. */
  events(): StripeEvent[];
  /** Sends one event (again, or out of order), optionally signed at another time. */
  redeliver(event: StripeEvent, options?: { timestamp?: number }): Promise<WebhookDelivery | null>;
  /** The body and `Stripe-Signature` header Stripe would send for `event`. */
  signedPayload(event: StripeEvent, options?: { timestamp?: number }): { payload: string; header: string };
  deliveries(): WebhookDelivery[];
  /** Every API request answered, oldest first. */
  requests(): StripeDoubleRequest[];
  /**
   * The next request to `method path` is carried out (and kept under its idempotency key) but
   * its connection is closed before the answer: a call that changed Stripe while the caller saw
   * only a network error, as after a crash or a dropped connection.
   */
  loseNextAnswer(method: 'GET' | 'POST', path: string): void;
  /** The double's objects by id, as the API would answer them. */
  object(id: string): StripeObject | undefined;
}

interface StoredAnswer {
  method: string;
  path: string;
  params: StripeParams;
  status: number;
  body: unknown;
}

const MAX_BODY_BYTES = 1 << 20;

export async function startStripeDouble(options: StripeDoubleOptions): Promise<StripeDouble> {
  if (!/^sk_test_\w+$/.test(options.secretKey)) throw new Error(`startStripeDouble: secretKey must look like sk_test_..., got '${options.secretKey}'`);
  const webhookSecret = options.webhookSecret ?? stripeId('whsec_');
  const state = new StripeState();
  const sender = new WebhookSender(webhookSecret);
  let apiVersion: string | null = null;
  const lifecycle = new StripeLifecycle(state, sender, () => apiVersion);
  const routes = stripeRoutes(state, stripeId('bpc_'));
  const idempotent = new Map<string, StoredAnswer>();
  const log: StripeDoubleRequest[] = [];
  const answersToLose: string[] = [];

  function authenticate(request: IncomingMessage): void {
    const header = request.headers.authorization ?? '';
    const bearer = /^Bearer (.+)$/.exec(header)?.[1];
    const basic = /^Basic (.+)$/.exec(header)?.[1];
    const key = bearer ?? (basic ? Buffer.from(basic, 'base64').toString('utf8').replace(/:$/, '') : undefined);
    if (!key) {
      throw new StripeRequestError(401, 'invalid_request_error', 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\').');
    }
    if (key !== options.secretKey) {
      throw new StripeRequestError(401, 'invalid_request_error', `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`, 'api_key_invalid');
    }
  }

  async function readBody(request: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) throw new StripeRequestError(413, 'invalid_request_error', 'Request body too large.');
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function answer(request: IncomingMessage): Promise<{ status: number; body: unknown; idempotencyKey: string | null; replayed: boolean }> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const idempotencyKey = method === 'POST' ? (request.headers['idempotency-key'] as string | undefined) ?? null : null;
    authenticate(request);
    const version = request.headers['stripe-version'];
    if (typeof version === 'string' && version) apiVersion = version;
    const text = method === 'GET' ? url.search.slice(1) : await readBody(request);
    const contentType = request.headers['content-type'] ?? '';
    if (method === 'POST' && text && !contentType.startsWith('application/x-www-form-urlencoded')) {
      throw new StripeRequestError(400, 'invalid_request_error', `Invalid request: Stripe takes application/x-www-form-urlencoded bodies, got '${contentType}'.`);
    }
    const params = parseStripeParams(text);
    if (idempotencyKey !== null) {
      const stored = idempotent.get(idempotencyKey);
      if (stored) {
        if (stored.method !== method || stored.path !== url.pathname || !isDeepStrictEqual(stored.params, params)) {
          throw new StripeRequestError(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`);
        }
        return { status: stored.status, body: stored.body, idempotencyKey, replayed: true };
      }
    }
    for (const route of routes) {
      const match = route.method === method ? route.pattern.exec(url.pathname) : null;
      if (!match) continue;
      const object = route.handle(params, match.slice(1).map((id) => decodeURIComponent(id)));
      const body = state.expand(object, expandPaths(params).filter((path) => path !== 'line_items'));
      if (idempotencyKey !== null) idempotent.set(idempotencyKey, { method, path: url.pathname, params, status: 200, body });
      return { status: 200, body, idempotencyKey, replayed: false };
    }
    throw new StripeRequestError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${url.pathname}). The Stripe double serves only the routes cairn's billing calls.`);
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let result: { status: number; body: unknown; idempotencyKey: string | null; replayed: boolean };
    try {
      result = await answer(request);
    } catch (error) {
      const refusal = error instanceof StripeRequestError ? error : new StripeRequestError(500, 'api_error', `The Stripe double failed: ${error instanceof Error ? error.message : String(error)}`);
      result = { status: refusal.status, body: refusal.body(), idempotencyKey: null, replayed: false };
    }
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    log.push({ method: request.method ?? 'GET', path, status: result.status, idempotencyKey: result.idempotencyKey, replayed: result.replayed });
    const lost = answersToLose.indexOf(`${request.method ?? 'GET'} ${path}`);
    if (lost >= 0) {
      answersToLose.splice(lost, 1);
      request.socket.destroy();
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': stripeId('req_') };
    if (result.idempotencyKey !== null) headers['idempotency-key'] = result.idempotencyKey;
    if (result.replayed) headers['idempotent-replayed'] = 'true';
    response.writeHead(result.status, headers).end(JSON.stringify(result.body, null, 2));
  }

  const server = createServer((request, response) => void serve(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = '127.0.0.1';

  return {
    url: `http://${host}:${port}`,
    host,
    port,
    webhookSecret,
    sdkOptions: { host, port, protocol: 'http', maxNetworkRetries: 0 },
    stop: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    }),
    deliverTo: (url) => sender.deliverTo(url),
    completeCheckout: (id) => lifecycle.completeCheckout(id),
    failPayment: (id) => lifecycle.failPayment(id),
    recoverPayment: (id) => lifecycle.recoverPayment(id),
    payInvoice: (id) => lifecycle.payInvoice(id),
    endTrialSoon: (id) => lifecycle.endTrialSoon(id),
    cancel: (id) => lifecycle.cancel(id),
    scheduleCancel: (id) => lifecycle.scheduleCancel(id),
    changePrice: (id, priceId) => lifecycle.changePrice(id, priceId),
    events: () => lifecycle.events(),
    redeliver: (event, deliveryOptions) => sender.deliver(event, deliveryOptions),
    signedPayload: (event, payloadOptions) => sender.signedPayload(event, payloadOptions),
    deliveries: () => sender.deliveries(),
    requests: () => log.map((entry) => ({ ...entry })),
    loseNextAnswer: (method, path) => {
      answersToLose.push(`${method} ${path}`);
    },
    object: (id) => {
      const found = state.findAny(id);
      return found && structuredClone(found);
    },
  };
}
