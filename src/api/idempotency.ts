/**
 * @module `Idempotency-Key` on POST: the first request with a key runs and its response is
 * kept; a retry with the same key and body within 24 hours gets that response again (nothing
 * runs twice); the same key with another body is 422; a retry while the first still runs, 409.
 * A route whose answer holds a secret shown only once (a generated private key) sets
 * `res.locals[KEPT_BODY]` to the answer without it: that is what is kept and replayed, so the
 * secret is never stored in the clear.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { ConflictError, MalformedRequestError, ValidationError } from '../model/errors.js';
import type { IdempotencyKeys, KeyOwner } from '../store/idempotency-keys.js';
import { principalOf } from './authentication.js';
import { canonicalJson } from '../model/canonical-json.js';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** `res.locals` key of the body to keep for replays instead of the one sent (see the module comment). */
export const KEPT_BODY = 'idempotencyKeptBody';

function fingerprint(method: string, url: string, body: unknown): string {
  const text = typeof body === 'string' ? body : canonicalJson(body ?? null);
  return createHash('sha256').update(`${method} ${url}\n${text}`).digest('hex');
}

/** Keeps what the route sends, and hands it to `done` once the response is finished. */
function captureBody(res: Response, done: (body: string) => void): void {
  const send = res.send.bind(res);
  res.send = (body?: unknown): Response => {
    res.send = send;
    const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body ?? null);
    const kept: unknown = res.locals[KEPT_BODY];
    res.once('finish', () => done(typeof kept === 'string' ? kept : text));
    return send(body);
  };
}

export function idempotentPosts(keys: IdempotencyKeys): RequestHandler {
  return (req, res, next) => {
    const key = req.get('Idempotency-Key');
    if (req.method !== 'POST' || key === undefined) {
      next();
      return;
    }
    if (!KEY_PATTERN.test(key)) throw new MalformedRequestError('Idempotency-Key must be 1-255 visible ASCII characters');
    const principal = principalOf(res);
    const owner: KeyOwner = { tenant: principal.tenant, principal: principal.subject, key };
    const claim = keys.claim(owner, fingerprint(req.method, req.originalUrl, req.body));
    switch (claim.state) {
      case 'mismatch':
        throw new ValidationError('this Idempotency-Key was already used with a different request; use a new key', [
          { pointer: '/Idempotency-Key', message: 'already used with a different request' },
        ]);
      case 'in_progress':
        throw new ConflictError('a request with this Idempotency-Key is still being processed; retry shortly');
      case 'replay': {
        const kept = claim.response;
        if (kept.contentType) res.type(kept.contentType);
        if (kept.location) res.setHeader('Location', kept.location);
        if (kept.etag) res.setHeader('ETag', kept.etag);
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(kept.status).send(kept.body);
        return;
      }
      case 'claimed':
        captureBody(res, (body) => {
          if (res.statusCode >= 500) {
            keys.release(owner);
            return;
          }
          keys.complete(owner, {
            status: res.statusCode,
            contentType: (res.getHeader('Content-Type') as string | undefined) ?? null,
            location: (res.getHeader('Location') as string | undefined) ?? null,
            etag: (res.getHeader('ETag') as string | undefined) ?? null,
            body,
          });
        });
        res.once('close', () => {
          if (!res.writableFinished) keys.release(owner);
        });
        next();
    }
  };
}
