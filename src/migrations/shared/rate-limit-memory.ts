/**
 * @module What a platform said about an API key's rate limit, remembered until it passes: after
 * a 429 whose Retry-After was too long to wait out, every later call with the same key (to the
 * same API) is answered RateLimitedError at once, with the time still left, instead of waiting
 * in the vendor kit's paused budget or asking the platform again before it said to. Keyed by a
 * fingerprint of the key, never the key.
 */
import { createHash } from 'node:crypto';
import { RateLimitedError } from '../../model/errors.js';
import type { PlatformName } from './platform-errors.js';

const until = new Map<string, number>();

/** How many limited keys are remembered at once (the soonest to pass is forgotten first past it). */
export const MAX_REMEMBERED = 10_000;

/** The memory's key of one API key at one API: platform, base URL and a fingerprint of the key. */
export function rateLimitKey(platform: PlatformName, baseUrl: string, apiKey: string): string {
  return `${platform} ${baseUrl} ${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

/** Throws RateLimitedError while the platform's last Retry-After for `key` has not passed. */
export function refuseWhileLimited(platform: PlatformName, key: string, now = Date.now()): void {
  const at = until.get(key);
  if (at === undefined) return;
  if (at <= now) {
    until.delete(key);
    return;
  }
  const seconds = Math.max(1, Math.ceil((at - now) / 1000));
  throw new RateLimitedError(`${platform} asked cairn to wait before calling it again with this API key; try again in ${seconds} s`, seconds);
}

/** Remembers `error` when it is a rate limit, and returns it. */
export function remember<T>(key: string, error: T, now = Date.now()): T {
  if (!(error instanceof RateLimitedError)) return error;
  if (!until.has(key) && until.size >= MAX_REMEMBERED) {
    for (const [other, at] of until) if (at <= now) until.delete(other);
    if (until.size >= MAX_REMEMBERED) until.delete([...until].sort((a, b) => a[1] - b[1])[0]![0]);
  }
  until.set(key, Math.max(until.get(key) ?? 0, now + error.retryAfterSeconds * 1000));
  return error;
}

/** How many limited keys are remembered (for tests). */
export function rememberedKeys(): number {
  return until.size;
}
