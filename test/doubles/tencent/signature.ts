/**
 * @module Tencent Cloud's TC3-HMAC-SHA256 signature, checked as Tencent's API checks it (its
 * algorithm is public: "Signature v3" in Tencent's API documentation): the canonical request
 * (method, path, query, the signed headers, the body's SHA-256) hashed into the string to sign
 * with the timestamp and credential scope (`<date>/<service>/tc3_request`), signed with a key
 * derived from the SecretKey by date, service and `tc3_request`. The `host` header is signed
 * without a port, as the SDK signs it (Tencent's hosts have none). The timestamp must be within
 * five minutes, and the scope's date the timestamp's day (UTC).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SignatureProblem {
  code: string;
  message: string;
}

const hmac = (key: Buffer | string, text: string): Buffer => createHmac('sha256', key).update(text).digest();
const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** Null when `headers` carry a valid signature of the request by `secretId`/`secretKey`, else Tencent's refusal. */
export function checkTc3Signature(
  request: { method: string; path: string; query: string; headers: IncomingHttpHeaders; body: Buffer },
  secretId: string,
  secretKey: string,
  nowMs = Date.now(),
): SignatureProblem | null {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string' || authorization === '') return { code: 'AuthFailure.SignatureFailure', message: 'The request is not signed: there is no Authorization header.' };
  const match = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return { code: 'AuthFailure.InvalidAuthorization', message: 'Authorization header format error.' };
  const [, id, date, service, signedHeaders, signature] = match as unknown as [string, string, string, string, string, string];
  if (id !== secretId) return { code: 'AuthFailure.SecretIdNotFound', message: 'The SecretId is not found, please ensure that your SecretId is correct.' };
  const timestamp = Number(request.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp)) return { code: 'MissingParameter', message: 'The request is missing a required parameter `X-TC-Timestamp`.' };
  if (Math.abs(nowMs / 1000 - timestamp) > 300) return { code: 'AuthFailure.SignatureExpire', message: 'Signature expired. Timestamp and server time cannot exceed five minutes.' };
  if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) return { code: 'AuthFailure.InvalidAuthorization', message: "The credential scope's date is not the timestamp's day." };
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('content-type')) return { code: 'AuthFailure.InvalidAuthorization', message: 'SignedHeaders must include content-type and host.' };
  const canonicalHeaders = names.map((name) => {
    const raw = request.headers[name];
    const value = (Array.isArray(raw) ? raw.join(',') : raw ?? '').trim();
    return `${name}:${name === 'host' ? value.replace(/:\d+$/, '') : value}\n`;
  }).join('');
  const canonicalRequest = [request.method, request.path, request.query, canonicalHeaders, signedHeaders, sha256(request.body)].join('\n');
  const stringToSign = ['TC3-HMAC-SHA256', String(timestamp), `${date}/${service}/tc3_request`, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(`TC3${secretKey}`, date), service), 'tc3_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return { code: 'AuthFailure.SignatureFailure', message: 'The provided credentials could not be validated. Please check your signature is correct.' };
  }
  return null;
}
