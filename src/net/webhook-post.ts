/**
 * @module POSTing a JSON webhook to a URL a tenant gave (alerts' and event webhooks'): through
 * the outbound guard (guarded-fetch.ts), with the delivery's id in `X-Cairn-Delivery` for the
 * receiver to drop a copy a crash may cause, and — given a secret — signed as
 * `X-Cairn-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. Anything but a 2xx answer
 * throws, saying why.
 */
import { createHmac } from 'node:crypto';
import { guardedFetch, outboundRefusal } from './guarded-fetch.js';

export const DELIVERY_HEADER = 'X-Cairn-Delivery';
export const SIGNATURE_HEADER = 'X-Cairn-Signature-256';
const WEBHOOK_TIMEOUT_MS = 10_000;

/** `sha256=<hex HMAC-SHA256 of the raw body with the secret>`, the X-Cairn-Signature-256 header. */
export function signatureOf(rawBody: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

export interface WebhookPost {
  url: string;
  /** The exact bytes sent (and signed). */
  body: string;
  deliveryId: string;
  userAgent: string;
  /** Signs the body when given. */
  secret?: string | undefined;
  headers?: Record<string, string>;
}

/** Sends one webhook; resolves once a 2xx answered, throws otherwise. */
export async function postWebhook(post: WebhookPost): Promise<void> {
  const headers: Record<string, string> = {
    'content-type': 'application/json', 'user-agent': post.userAgent, [DELIVERY_HEADER]: post.deliveryId, ...post.headers,
  };
  if (post.secret !== undefined) headers[SIGNATURE_HEADER] = signatureOf(post.body, post.secret);
  const origin = new URL(post.url).origin;
  let answer: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    answer = await guardedFetch(post.url, { method: 'POST', headers, body: post.body, redirect: 'manual', signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) });
  } catch (error) {
    const refused = outboundRefusal(error);
    if (refused) throw new Error(`refused by cairn's outbound guard: ${refused.message}`, { cause: error });
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new Error(`POST ${origin} failed: ${error instanceof Error ? error.message : String(error)}${cause}`, { cause: error });
  }
  if (answer.status >= 200 && answer.status < 300) {
    await answer.body?.cancel();
    return;
  }
  const text = (await answer.text().catch(() => '')).slice(0, 200);
  throw new Error(`POST ${origin} answered HTTP ${answer.status}${text ? `: ${text}` : ''}`);
}
