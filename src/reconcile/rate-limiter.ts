/**
 * @module controller-runtime's default rate limiter: per-item exponential backoff (5 ms → 1000 s,
 * here with jitter) combined with an overall token bucket; the larger delay wins. An item's
 * failures are forgotten only when it succeeds.
 */

export interface RateLimiter<K> {
  /** How long to wait before retrying `item` (counts one more failure). */
  when(item: K): number;
  forget(item: K): void;
  failures(item: K): number;
}

export class ItemExponentialBackoff<K> implements RateLimiter<K> {
  private readonly counts = new Map<K, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
    /** Fraction of the delay added at random, so that retries of many items spread out. */
    private readonly jitter = 0.2,
    private readonly random: () => number = Math.random,
  ) {}

  when(item: K): number {
    const failures = this.counts.get(item) ?? 0;
    this.counts.set(item, failures + 1);
    const delay = Math.min(this.baseMs * 2 ** failures, this.maxMs);
    return Math.min(this.maxMs, delay * (1 + this.jitter * this.random()));
  }

  forget(item: K): void {
    this.counts.delete(item);
  }

  failures(item: K): number {
    return this.counts.get(item) ?? 0;
  }
}

/** An overall bucket of `burst` tokens refilled at `perSecond`; returns how long until a token is ours. */
export class TokenBucket<K> implements RateLimiter<K> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond = 10,
    private readonly burst = 100,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  when(_item: K): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.perSecond) * 1000;
  }

  forget(_item: K): void {}

  failures(_item: K): number {
    return 0;
  }
}

export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  private readonly limiters: RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(item: K): number {
    return Math.max(...this.limiters.map((l) => l.when(item)));
  }

  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }

  failures(item: K): number {
    return Math.max(...this.limiters.map((l) => l.failures(item)));
  }
}

export function defaultControllerRateLimiter<K>(): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(new ItemExponentialBackoff<K>(5, 1_000_000), new TokenBucket<K>(10, 100));
}
