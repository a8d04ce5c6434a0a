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
  /**
   * A second limit some vendors publish besides the hourly one (DigitalOcean: 250 a minute as
   * well as 5,000 an hour): a bucket of this size refilled over a minute, which every request
   * must also find a token in.
   */
  perMinute?: number;
}

export class RateBudget {
  private tokens: number;
  /** The per-minute bucket's tokens, when the vendor has that limit too. */
  private minuteTokens: number;
  private refilledAt: number;
  private pausedUntil = 0;
  /**
   * The newest word from the vendor: what was left after the request with this ticket (the
   * `taken` count when it went), and when its window frees the next request. Requests sent
   * since count against it, so answers still in flight cannot let a burst through.
   */
  private said: { remaining: number; ticket: number; resetAtMs: number | undefined } | undefined;
  /** Requests let through, and how long callers waited in all, for benchmarks and metrics. */
  readonly stats = { taken: 0, waitedMs: 0 };

  constructor(
    private readonly options: RateBudgetOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = options.burst;
    this.minuteTokens = options.perMinute ?? Infinity;
    this.refilledAt = now();
  }

  private refill(): void {
    const at = this.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((at - this.refilledAt) * this.options.perHour) / 3_600_000);
    const perMinute = this.options.perMinute;
    if (perMinute !== undefined) this.minuteTokens = Math.min(perMinute, this.minuteTokens + ((at - this.refilledAt) * perMinute) / 60_000);
    this.refilledAt = at;
  }

  /** How long a request would have to wait now (0: it may go). */
  private waitMs(): number {
    this.refill();
    const now = this.now();
    const paused = this.pausedUntil - now;
    if (paused > 0) return paused;
    const said = this.said;
    if (said !== undefined && said.remaining - (this.stats.taken - said.ticket) < 1) {
      if (said.resetAtMs !== undefined && now < said.resetAtMs) return said.resetAtMs - now;
      // The window has freed at least one request: one goes, the rest wait for its answer (or a second).
      this.said = { remaining: 1, ticket: this.stats.taken, resetAtMs: now + PROBE_WAIT_MS };
    }
    const hourly = this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 3_600_000) / this.options.perHour);
    const perMinute = this.options.perMinute;
    const minutely = perMinute === undefined || this.minuteTokens >= 1 ? 0 : Math.ceil(((1 - this.minuteTokens) * 60_000) / perMinute);
    return Math.max(hourly, minutely);
  }

  /**
   * Waits until one request may go, then counts it; rejects when `signal` aborts first. Returns
   * the request's ticket, to give `observe` with what its answer says.
   */
  async take(signal?: AbortSignal): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.waitMs();
      if (wait === 0) {
        this.tokens -= 1;
        this.minuteTokens -= 1;
        return ++this.stats.taken;
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
   * What the vendor says is left (`RateLimit-Remaining`) after the request with `ticket` (from
   * `take`), and when its window frees the next one (`RateLimit-Reset`, epoch ms). The newest
   * answer counts, less the requests sent after it; an older one changes nothing. Without a
   * ticket the count only lowers cairn's own, which refills at the published rate.
   */
  observe(remaining: number, resetAtMs: number | undefined, ticket?: number): void {
    this.refill();
    this.tokens = Math.min(this.tokens, remaining);
    if (ticket === undefined) {
      if (remaining <= 0 && resetAtMs !== undefined) this.pausedUntil = Math.max(this.pausedUntil, resetAtMs);
      return;
    }
    if (this.said !== undefined && ticket <= this.said.ticket) return;
    this.said = { remaining, ticket, resetAtMs };
  }
}

/** After a window frees, how long the one request let through may go unanswered before another goes. */
const PROBE_WAIT_MS = 1_000;

const shared = new Map<string, RateBudget>();

/** The variable that multiplies every vendor's published rate: see `budgetRateScale`. */
export const RATE_SCALE_VARIABLE = 'CAIRN_VENDOR_RATE_SCALE';

/**
 * How many times its published rate each vendor's budget refills at (CAIRN_VENDOR_RATE_SCALE,
 * default 1): the tests set it, since their doubles have no such limit and a driver test that
 * made its 200 requests at Leaseweb's 5 a second would wait 40 s for nothing. The burst and
 * everything the vendor says (`RateLimit-*`, a 429's `Retry-After`) are followed as they are.
 * Refused, naming the variable, unless a positive number.
 */
export function budgetRateScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[RATE_SCALE_VARIABLE];
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`${RATE_SCALE_VARIABLE} must be a positive number (how many times each vendor's published request rate cairn may use), got "${raw}"`);
  return scale;
}

/** `options` with its rates (not its burst) multiplied by `scale`. */
export function scaledBudget(options: RateBudgetOptions, scale: number): RateBudgetOptions {
  if (scale === 1) return options;
  return { ...options, perHour: options.perHour * scale, ...(options.perMinute === undefined ? {} : { perMinute: options.perMinute * scale }) };
}

/** The one budget of a provider (by vendor, API base URL and credential), made on first use, at its rate times `budgetRateScale()`. */
export function sharedBudget(key: string, options: RateBudgetOptions): RateBudget {
  let budget = shared.get(key);
  if (!budget) {
    budget = new RateBudget(scaledBudget(options, budgetRateScale()));
    shared.set(key, budget);
  }
  return budget;
}
