/**
 * @module When a failed delivery (alert notification, event webhook) is tried again: exponential backoff from one second,
 * doubling per failed attempt, capped at five minutes, and given up after MAX_ATTEMPTS attempts.
 */

/** Attempts a delivery gets before it is marked failed. */
export const MAX_ATTEMPTS = 6;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 5 * 60_000;

/** The wait after `attempts` failed attempts (1 → 1 s, 2 → 2 s, 3 → 4 s …), or null when it should be given up. */
export function retryDelayMs(attempts: number): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, attempts - 1));
}
