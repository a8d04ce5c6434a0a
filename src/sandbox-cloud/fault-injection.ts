/**
 * @module The sandbox's fault injection, applied to every /v1 request before it is handled:
 * added latency, a token-bucket rate limit (429 + Retry-After), and with probability
 * `errorRate` one of: 500, 503, 429, a hang that ends in a dropped connection, or — on
 * writes — a lost response (the write is applied, then a 502 is returned).
 */
import type { RequestHandler } from 'express';
import { SandboxApiError } from './api-error.js';
import { mergeFaults, type FaultKind, type SandboxFaults } from './options.js';
import { markResponseLost } from './reply.js';
import type { RequestStats } from './request-stats.js';
import { TokenBucket } from './token-bucket.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class FaultInjector {
  private faults: SandboxFaults;
  private bucket: TokenBucket | undefined;
  private readonly hangs = new Set<NodeJS.Timeout>();

  constructor(
    initial: SandboxFaults,
    private readonly random: () => number,
    private readonly stats: RequestStats,
  ) {
    this.faults = initial;
    this.bucket = this.makeBucket();
  }

  settings(): SandboxFaults {
    return this.faults;
  }

  /** Changes some knobs at runtime; throws a RangeError on a bad value and keeps the old ones. */
  set(change: Partial<SandboxFaults>): void {
    const next = mergeFaults(this.faults, change);
    const rateChanged = next.rateLimitPerSecond !== this.faults.rateLimitPerSecond;
    this.faults = next;
    if (rateChanged) this.bucket = this.makeBucket();
  }

  /** Drops every held ("timeout") request. */
  close(): void {
    for (const timer of this.hangs) clearTimeout(timer);
    this.hangs.clear();
  }

  private makeBucket(): TokenBucket | undefined {
    return this.faults.rateLimitPerSecond > 0 ? new TokenBucket(this.faults.rateLimitPerSecond) : undefined;
  }

  /** Delays by latencyMs; placed before authentication, like a network would. */
  latency(): RequestHandler {
    return async (_req, _res, next) => {
      const ms = this.faults.latencyMs;
      if (ms > 0) {
        this.stats.recordDelay(1);
        try {
          await new Promise<void>((resolve) => setTimeout(resolve, ms));
        } finally {
          this.stats.recordDelay(-1);
        }
      }
      next();
    };
  }

  /** Rate limit, then the dice. */
  inject(): RequestHandler {
    return (req, res, next) => {
      const taken = this.bucket?.take() ?? { ok: true };
      if (!taken.ok) {
        this.stats.recordFault();
        const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
        next(new SandboxApiError(429, 'rate_limited', `rate limit of ${this.faults.rateLimitPerSecond} requests per second exceeded; retry after ${seconds} s`, undefined, { 'Retry-After': String(seconds) }));
        return;
      }
      const fault = this.draw(WRITE_METHODS.has(req.method));
      if (fault === undefined) {
        next();
        return;
      }
      this.stats.recordFault();
      switch (fault) {
        case 'server_error':
          next(new SandboxApiError(500, 'server_error', 'internal server error (simulated fault)'));
          return;
        case 'unavailable':
          next(new SandboxApiError(503, 'server_error', 'service unavailable (simulated fault)'));
          return;
        case 'rate_limited':
          next(new SandboxApiError(429, 'rate_limited', 'too many requests (simulated fault); retry after 1 s', undefined, { 'Retry-After': '1' }));
          return;
        case 'timeout': {
          const timer = setTimeout(() => {
            this.hangs.delete(timer);
            req.socket.destroy();
          }, this.faults.hangMs);
          this.hangs.add(timer);
          req.socket.once('close', () => {
            clearTimeout(timer);
            this.hangs.delete(timer);
          });
          return;
        }
        case 'lost_response':
          markResponseLost(res);
          next();
          return;
      }
    };
  }

  /** A fault with probability errorRate, chosen evenly among the enabled kinds that fit the method. */
  private draw(isWrite: boolean): FaultKind | undefined {
    if (this.faults.errorRate <= 0) return undefined;
    const kinds = this.faults.faultKinds.filter((k) => isWrite || k !== 'lost_response');
    if (kinds.length === 0 || this.random() >= this.faults.errorRate) return undefined;
    return kinds[Math.floor(this.random() * kinds.length)];
  }
}
