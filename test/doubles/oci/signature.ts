/**
 * @module How the OCI double checks a request's signature as OCI does (draft-cavage HTTP
 * signatures, version 1): the `Authorization: Signature` header's keyId must be
 * `<tenancy>/<user>/<fingerprint>` of the test key, its algorithm rsa-sha256, its headers those
 * OCI requires (`date` or `x-date`, `(request-target)`, `host`, plus `x-content-sha256 content-type
 * content-length` on a body-carrying request, the digest matching the body) and its signature
 * valid under the key's public half. Also the test key: an RSA key made once per process, with
 * its OCI fingerprint.
 */
import { createHash, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { keyFingerprint } from '../../../src/drivers/oci/credentials.js';

export interface OciTestKey {
  privateKeyPem: string;
  publicKey: KeyObject;
  fingerprint: string;
}

let made: OciTestKey | undefined;

/** The test API key (2048-bit RSA, PKCS#8 PEM as the Console's download is). */
export function ociTestKey(): OciTestKey {
  if (!made) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    made = { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey, fingerprint: keyFingerprint(privateKey) };
  }
  return made;
}

const BODY_HEADERS = ['x-content-sha256', 'content-type', 'content-length'];

/** Why the request's signature is refused, or undefined when it is good. */
export function signatureProblem(request: { method: string; pathAndQuery: string; headers: IncomingMessage['headers']; body: string }, keyId: string, publicKey: KeyObject): string | undefined {
  const header = String(request.headers.authorization ?? '');
  if (!header.startsWith('Signature ')) return 'the request is not signed (no Authorization: Signature header)';
  const params = new Map([...header.slice('Signature '.length).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
  if (params.get('version') !== '1') return 'signature version must be 1';
  if (params.get('algorithm') !== 'rsa-sha256') return `algorithm ${params.get('algorithm') ?? '(none)'} is not rsa-sha256`;
  if (params.get('keyId') !== keyId) return `keyId ${params.get('keyId') ?? '(none)'} is not a key of this tenancy's user`;
  // Header names are case-insensitive (the SDK lists Content-Type and Content-Length capitalised).
  const signed = (params.get('headers') ?? '').split(' ').filter((h) => h !== '').map((h) => h.toLowerCase());
  const dated = signed.includes('x-date') ? 'x-date' : 'date';
  const required = [dated, '(request-target)', 'host', ...(['POST', 'PUT', 'PATCH'].includes(request.method) ? BODY_HEADERS : [])];
  const missing = required.filter((h) => !signed.includes(h));
  if (missing.length > 0) return `the signature does not cover ${missing.join(', ')}`;
  if (signed.includes('x-content-sha256')) {
    const digest = createHash('sha256').update(request.body).digest('base64');
    if (request.headers['x-content-sha256'] !== digest) return 'x-content-sha256 is not the digest of the body';
  }
  const date = Date.parse(String(request.headers.date ?? request.headers['x-date'] ?? ''));
  if (Number.isNaN(date) || Math.abs(Date.now() - date) > 5 * 60_000) return 'the date header is missing or more than 5 minutes off';
  const text = signed.map((h) => (h === '(request-target)' ? `(request-target): ${request.method.toLowerCase()} ${request.pathAndQuery}` : `${h}: ${String(request.headers[h] ?? '')}`)).join('\n');
  const ok = createVerify('RSA-SHA256').update(text).verify(publicKey, params.get('signature') ?? '', 'base64');
  return ok ? undefined : 'the signature does not verify with the key';
}
