/**
 * @module A token bucket: `ratePerSecond` tokens refill each second, up to that many held.
 * The sandbox uses one over all requests to play a vendor's rate limit.
 */

export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private readonly capacity: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.capacity = Math.max(1, ratePerSecond);
    this.tokens = this.capacity;
    this.updatedAt = now();
  }

  /** Takes one token, or says how long until one is available. */
  take(): TakeResult {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.updatedAt) / 1000) * this.ratePerSecond);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000) };
  }
}
