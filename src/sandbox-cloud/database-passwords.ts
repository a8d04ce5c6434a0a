/**
 * @module Passwords of sandbox databases: checked for length, kept only as salted scrypt hashes
 * (a small cost: it is a simulation, but never plaintext), and verified in constant time.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { unprocessable } from './api-error.js';
import type { JsonObject } from './body-fields.js';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** scrypt cost: N (a power of two), r, p; 1 MiB of memory, about a millisecond. */
const COST = { N: 1024, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/** The `password` field of a request body: a string of 12 to 128 characters, else a 422 naming it. */
export function readPassword(body: JsonObject, field = 'password'): string {
  const value = body[field];
  if (typeof value !== 'string') throw unprocessable(field, `${field} is required: a string of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  if (value.length < PASSWORD_MIN_LENGTH || value.length > PASSWORD_MAX_LENGTH) {
    throw unprocessable(field, `${field} must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long, got ${value.length}`);
  }
  return value;
}

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number, cost: typeof COST) => Promise<Buffer>;

function encodeHash(salt: Buffer, hash: Buffer): string {
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url), with a fresh 16-byte salt. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return encodeHash(salt, scryptSync(password, salt, KEY_LENGTH, COST));
}

/** `hashPassword` on libuv's thread pool, for request handlers: the event loop goes on serving meanwhile. */
export async function hashPasswordOffLoop(password: string): Promise<string> {
  const salt = randomBytes(16);
  return encodeHash(salt, await scryptAsync(password, salt, KEY_LENGTH, COST));
}

/** True when `password` is the one `stored` was made from; false for a wrong password or a malformed hash. */
export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (expected.length === 0 || !Object.values(cost).every((v) => Number.isInteger(v) && v > 0)) return false;
  const actual = scryptSync(password, Buffer.from(salt, 'base64url'), expected.length, cost);
  return timingSafeEqual(actual, expected);
}
