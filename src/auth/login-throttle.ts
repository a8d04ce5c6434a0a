/**
 * @module Throttling of failed sign-ins, in memory: at most 5 failures per account and 20 per
 * client address in any 15 minutes; beyond that, sign-ins are refused (even with the right
 * password) until the oldest failure leaves the window. A success clears the account's count.
 */
import { RateLimitedError } from '../model/errors.js';

export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 };

/** Beyond this many tracked keys, expired ones are swept before adding another. */
const SWEEP_AT = 10_000;

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS,
  ) {}

  /** Throws RateLimitedError when the account or the address has failed too often lately. */
  check(account: string, address: string): void {
    const wait = Math.max(this.waitMs(`account:${account}`, this.limits.perAccount), this.waitMs(`address:${address}`, this.limits.perAddress));
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new RateLimitedError(`too many failed sign-ins; try again in ${seconds} seconds`, seconds);
    }
  }

  recordFailure(account: string, address: string): void {
    if (this.failures.size >= SWEEP_AT) this.sweep();
    for (const key of [`account:${account}`, `address:${address}`]) {
      const times = this.recent(key);
      times.push(this.now());
      this.failures.set(key, times);
    }
  }

  recordSuccess(account: string): void {
    this.failures.delete(`account:${account}`);
  }

  private waitMs(key: string, limit: number): number {
    const times = this.recent(key);
    if (times.length < limit) return 0;
    return times[times.length - limit]! + this.limits.windowMs - this.now();
  }

  private recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs;
    const times = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (times.length === 0) this.failures.delete(key);
    else this.failures.set(key, times);
    return times;
  }

  private sweep(): void {
    for (const key of [...this.failures.keys()]) this.recent(key);
  }
}
