/**
 * @module Opaque bearer secrets (refresh tokens, API tokens): 256 random bits behind a prefix
 * that says what they are (so secret scanners and people recognise them), stored only as
 * SHA-256 hashes.
 */
import { createHash, randomBytes } from 'node:crypto';

export const API_TOKEN_PREFIX = 'cairn_pat_';
export const REFRESH_TOKEN_PREFIX = 'cairn_rt_';

const BODY = /^[A-Za-z0-9_-]{43}$/;

export function newOpaqueToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** True when `token` has the prefix and the shape of a token made by `newOpaqueToken(prefix)`. */
export function isOpaqueToken(token: string, prefix: string): boolean {
  return token.startsWith(prefix) && BODY.test(token.slice(prefix.length));
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
