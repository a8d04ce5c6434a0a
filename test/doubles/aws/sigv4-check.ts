/**
 * @module How the AWS double checks a request's Signature Version 4: the `Authorization` header
 * must be well formed (`AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/<service>/aws4_request,
 * SignedHeaders=…, Signature=<64 hex>`), name the double's access key id, and carry the signature
 * `@smithy/signature-v4` computes from the secret over the same method, path, signed headers and
 * body at the request's `X-Amz-Date`. Answers which region and service the request was signed for.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  return data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** The hash SignatureV4 asks for (`new Sha256(secret?)`: an HMAC with a secret), on node:crypto. */
export class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

export type SignatureCheck =
  | { ok: true; region: string; service: string }
  | { ok: false; code: 'AuthFailure' | 'SignatureDoesNotMatch' | 'IncompleteSignature'; message: string };

const HEADER = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** `20261126T203000Z` as a Date. */
function amzDate(text: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))) : undefined;
}

export async function checkSignature(request: IncomingMessage, body: string, keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): Promise<SignatureCheck> {
  const header = request.headers.authorization ?? '';
  const m = HEADER.exec(header);
  const date = amzDate(String(request.headers['x-amz-date'] ?? ''));
  if (!m || !date) return { ok: false, code: 'IncompleteSignature', message: 'The request signature does not conform to AWS standards.' };
  const [, keyId, , region, service, signedHeaders, signature] = m as unknown as [string, string, string, string, string, string, string];
  if (keyId !== keys.accessKeyId) return { ok: false, code: 'AuthFailure', message: 'AWS was not able to validate the provided access credentials' };
  if (keys.sessionToken !== undefined && request.headers['x-amz-security-token'] !== keys.sessionToken) {
    return { ok: false, code: 'AuthFailure', message: 'The security token included in the request is invalid.' };
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) headers[name] = String(request.headers[name] ?? '');
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
  const signer = new SignatureV4({ credentials: keys, region, service, sha256: Sha256, uriEscapePath: true });
  const signed = await signer.sign(
    { method: request.method ?? 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body },
    { signingDate: date, signingRegion: region, signingService: service },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers['authorization'] ?? ''))?.[1];
  if (expected !== signature) return { ok: false, code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.' };
  return { ok: true, region, service };
}
