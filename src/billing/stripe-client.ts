/**
 * @module The Stripe SDK as cairn uses it: the secret key, the API base from
 * CAIRN_STRIPE_API_BASE (host, port and protocol) when set, and every request through cairn's
 * outbound guard (guardedFetch), so a base on a private or loopback address needs
 * CAIRN_ALLOW_PRIVATE_ENDPOINTS like any other outbound call.
 */
import Stripe from 'stripe';
import { guardedFetch } from '../net/guarded-fetch.js';
import type { BillingSettings } from './billing-settings.js';

/** How long one Stripe request may take before the SDK gives up (it retries twice). */
const STRIPE_TIMEOUT_MS = 20_000;

export function stripeClient(settings: Pick<BillingSettings, 'secretKey' | 'apiBase'>): Stripe {
  const base = settings.apiBase;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(settings.secretKey, {
    httpClient: Stripe.createFetchHttpClient(guardedFetch as unknown as typeof fetch),
    maxNetworkRetries: 2,
    timeout: STRIPE_TIMEOUT_MS,
    appInfo: { name: 'cairn' },
    ...(base
      ? { host: base.hostname.replace(/^\[(.*)\]$/, '$1'), port: base.port === '' ? (protocol === 'http' ? 80 : 443) : Number(base.port), protocol }
      : {}),
  });
}
