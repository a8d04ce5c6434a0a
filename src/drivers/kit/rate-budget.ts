/**
 * @module A provider's request budget at its vendor: a token bucket refilled at the vendor's
 * published rate (e.g. Hetzner 3,600 requests an hour), shared by every driver of the same
 * provider, that also follows what the vendor says (`RateLimit-Remaining`/`-Reset`, a 429's
 * `Retry-After`) so cairn waits its turn instead of being refused.
 */
import { abortable } from './abortable-sleep.js';

export interface RateBudgetOptions {
  /** Requests the vendor allows per hour. */
  perHour: number;
  /** Requests that may go at once after a quiet spell (the bucket's size). */
  burst: number;
}

export class RateBudget {
  private tokens: number;
  private refilledAt: number;
  private pausedUntil = 0;
  /** Requests let through, and how long callers waited in all, for benchmarks and metrics. */
  readonly stats = { taken: 0, waitedMs: 0 };

  constructor(
    private readonly options: RateBudgetOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = options.burst;
    this.refilledAt = now();
  }

  private refill(): void {
    const at = this.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((at - this.refilledAt) * this.options.perHour) / 3_600_000);
    this.refilledAt = at;
  }

  /** How long a request would have to wait now (0: it may go). */
  private waitMs(): number {
    this.refill();
    const paused = this.pausedUntil - this.now();
    if (paused > 0) return paused;
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 3_600_000) / this.options.perHour);
  }

  /** Waits until one request may go, then counts it; rejects when `signal` aborts first. */
  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.waitMs();
      if (wait === 0) {
        this.tokens -= 1;
        this.stats.taken++;
        return;
      }
      this.stats.waitedMs += wait;
      await abortable(wait, signal);
    }
  }

  /** The vendor asked for a pause (429 Retry-After): nobody sends until it is over. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /**
   * What the vendor says is left (`RateLimit-Remaining`) and when it refills (epoch ms). Only ever
   * lowers cairn's count: an answer can be older than requests sent since, so a higher count may
   * already be spent; cairn's own refill at the published rate brings it back up.
   */
  observe(remaining: number, resetAtMs: number | undefined): void {
    this.refill();
    this.tokens = Math.min(this.tokens, remaining);
    if (remaining <= 0 && resetAtMs !== undefined) this.pausedUntil = Math.max(this.pausedUntil, resetAtMs);
  }
}

const shared = new Map<string, RateBudget>();

/** The one budget of a provider (by vendor, API base URL and credential), made on first use. */
export function sharedBudget(key: string, options: RateBudgetOptions): RateBudget {
  let budget = shared.get(key);
  if (!budget) {
    budget = new RateBudget(options);
    shared.set(key, budget);
  }
  return budget;
}
