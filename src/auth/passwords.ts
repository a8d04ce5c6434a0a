/**
 * @module Password hashing with scrypt (memory-hard), its parameters stored with the hash as
 * `scrypt$N$r$p$salt$hash` so they can be raised later without breaking older hashes.
 * Verification compares in constant time; `spendPasswordTime` costs what a verification costs,
 * for sign-ins with an unknown email.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

const DEFAULT_COST = { N: 2 ** 15, r: 8, p: 1 };
const HASH_BYTES = 32;
const SALT_BYTES = 16;
/** Parameters read back from a stored hash must stay within these, so a forged row cannot exhaust memory. */
const MAX_N = 2 ** 20;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, cost, HASH_BYTES);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** True when `password` matches `stored`; false for a wrong password or an unreadable hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.cost, parsed.hash.length);
  return timingSafeEqual(actual, parsed.hash);
}

let dummyHash: Promise<string> | undefined;

/** Makes the hash `spendPasswordTime` verifies against, so that even the first call costs one verification, no more. */
export async function preparePasswordTiming(): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64'));
  await dummyHash;
}

/** Spends the time a verification takes, against a hash no password matches. */
export async function spendPasswordTime(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64'));
  await verifyPassword(password, await dummyHash);
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `the password must be at least ${MIN_PASSWORD_LENGTH} characters long (it has ${length})`;
  if (length > MAX_PASSWORD_LENGTH) return `the password must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  return undefined;
}

function parseHash(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return undefined;
  if (!Number.isInteger(cost.N) || cost.N < 2 || cost.N > MAX_N || (cost.N & (cost.N - 1)) !== 0) return undefined;
  if (!Number.isInteger(cost.r) || cost.r < 1 || cost.r > 32 || !Number.isInteger(cost.p) || cost.p < 1 || cost.p > 16) return undefined;
  const parsed = { cost, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
  return parsed.hash.length >= 16 ? parsed : undefined;
}

function derive(password: string, salt: Buffer, cost: ScryptCost, length: number): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
