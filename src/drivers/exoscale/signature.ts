/**
 * @module Exoscale's request signature (EXO2-HMAC-SHA256, "API Request Signature" in its API
 * document): an HMAC-SHA256, keyed by the API secret, of a message of five lines — `<METHOD>
 * <path>` (the URL's path only), the body, the values of the query parameters that hold exactly
 * one value (names sorted, values joined without separator; the names go in the header's
 * `signed-query-args`, joined by `;`), an empty line for signed headers (none), and the
 * expiry as a UNIX timestamp — sent base64 in the `Authorization` header.
 */
import { createHmac } from 'node:crypto';

export interface SignedRequest {
  method: string;
  url: URL;
  body: string | undefined;
}

/** How long a signature is good for, as Exoscale's own clients sign (10 minutes). */
export const SIGNATURE_LIFETIME_S = 600;

/** The `Authorization` header value for `request`, good until `expires` (UNIX seconds). */
export function exoscaleAuthorization(apiKey: string, apiSecret: string, request: SignedRequest, expires: number): string {
  const names = [...new Set(request.url.searchParams.keys())].filter((name) => request.url.searchParams.getAll(name).length === 1).sort();
  const values = names.map((name) => request.url.searchParams.get(name) ?? '').join('');
  const message = [`${request.method} ${request.url.pathname}`, request.body ?? '', values, '', String(expires)].join('\n');
  const signature = createHmac('sha256', apiSecret).update(message, 'utf8').digest('base64');
  const parts = [`EXO2-HMAC-SHA256 credential=${apiKey}`];
  if (names.length > 0) parts.push(`signed-query-args=${names.join(';')}`);
  parts.push(`expires=${expires}`, `signature=${signature}`);
  return parts.join(',');
}
