/**
 * @module The sandbox's authentication: `Authorization: Bearer <token>` on every /v1 request;
 * any non-empty token, or only the configured one when the sandbox was started with a token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { SandboxApiError } from './api-error.js';

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function bearerAuth(requiredToken: string | undefined): RequestHandler {
  const challenge = { 'WWW-Authenticate': 'Bearer realm="sandbox"' };
  return (req, _res, next) => {
    const match = /^Bearer\s+(\S.*)$/i.exec(req.get('authorization') ?? '');
    const token = match?.[1]?.trim();
    if (!token) {
      next(new SandboxApiError(401, 'unauthorized', 'missing bearer token: send Authorization: Bearer <token>', undefined, challenge));
    } else if (requiredToken !== undefined && !sameToken(token, requiredToken)) {
      next(new SandboxApiError(401, 'unauthorized', 'the bearer token is not valid for this sandbox cloud', undefined, challenge));
    } else {
      next();
    }
  };
}
