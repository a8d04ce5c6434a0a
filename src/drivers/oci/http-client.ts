/**
 * @module How the OCI SDK's requests leave cairn: the SDK's clients take an `httpClient`, and
 * this one is used instead of its own fetch (which would go straight out, past the guard and its
 * circuit breaker). Each request waits its turn in the provider's rate budget, is signed by the
 * SDK's own signer (draft-cavage HTTP signatures over the key from the credentials), and goes
 * out through `guardedFetch` (a tenant's endpoint never reaches cairn's private network) with the
 * request timeout and the driver call's AbortSignal. A 429's `Retry-After` pauses the whole
 * provider. Passing faults (5xx, 429, a refused connection) are sent again here, a few times with
 * back-off, when the request is safe to repeat: a read, a delete, or a request carrying an
 * `opc-retry-token` (OCI answers a repeat of that token with the first one's result; the SDK
 * gives one of its own to every operation that takes one and was given none). The
 * SDK's own retries are turned off (see clients.ts), so a call ends within seconds and the
 * reconciler retries the rest.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DefaultRequestSigner, HttpRequest } from 'oci-common';
import { guardedFetch, outboundRefusal } from '../../net/guarded-fetch.js';
import { abortable } from '../kit/abortable-sleep.js';
import type { RateBudget } from '../kit/rate-budget.js';
import { parseRateLimitReset, parseRetryAfter } from '../kit/vendor-text.js';

/** What one driver call carries down to its requests: its signal, and the last transport error (the SDK keeps only its message). */
export interface OciCallContext {
  signal: AbortSignal | undefined;
  transportError?: unknown;
  /** The request's timeout fired (rather than the caller's signal). */
  timedOut?: boolean;
}

export const ociCallContext = new AsyncLocalStorage<OciCallContext>();

export interface GuardedOciHttpOptions {
  signer: Pick<DefaultRequestSigner, 'signHttpRequest'>;
  requestTimeoutMs: number;
  budget: RateBudget;
  /** Times a request safe to repeat is sent again after a passing fault. Default 2. */
  retries?: number;
  /** First back-off in ms, doubled each time. Default 200. */
  backoffMs?: number;
  /** Longest Retry-After waited for here; a longer one goes back to the reconciler. Default 10 s. */
  maxRetryAfterMs?: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'PUT']);

/** The SDK's `HttpClient`, through cairn's budget and outbound guard. */
export class GuardedOciHttpClient {
  /** Requests sent (every attempt). */
  sent = 0;

  constructor(private readonly options: GuardedOciHttpOptions) {}

  async send(request: HttpRequest): Promise<Response> {
    const context = ociCallContext.getStore();
    const repeatable = SAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has('opc-retry-token');
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.once(request, context);
      } catch (error) {
        if (!repeatable || attempt >= retries || context?.signal?.aborted === true || isRefusal(error)) throw error;
        await abortable(this.backoff(attempt), context?.signal);
        continue;
      }
      const passing = response.status === 429 || response.status >= 500;
      if (!passing || attempt >= retries || (!repeatable && response.status !== 429)) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const wait = response.status === 429 ? (retryAfter ?? this.backoff(attempt)) : this.backoff(attempt);
      if (wait > (this.options.maxRetryAfterMs ?? 10_000)) return response;
      await response.arrayBuffer().catch(() => undefined);
      await abortable(wait, context?.signal);
    }
  }

  private backoff(attempt: number): number {
    const base = (this.options.backoffMs ?? 200) * 2 ** attempt;
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  private async once(request: HttpRequest, context: OciCallContext | undefined): Promise<Response> {
    const ticket = await this.options.budget.take(context?.signal);
    // Signed per attempt: the signature covers the date header, which the signer sets.
    const headers = new Headers(request.headers);
    headers.delete('date');
    headers.delete('x-date');
    headers.delete('authorization');
    const body = typeof request.body === 'string' ? request.body : request.body === undefined || request.body === null ? undefined : JSON.stringify(request.body);
    await this.options.signer.signHttpRequest({ method: request.method, headers, uri: request.uri, body }, false);
    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs);
    const signal = context?.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
    this.sent++;
    try {
      const response = (await guardedFetch(request.uri, { method: request.method, headers, body, signal })) as unknown as Response;
      // OCI documents no RateLimit-* headers; they are followed if a gateway in front sends them.
      const remaining = response.headers.get('ratelimit-remaining');
      if (remaining !== null && /^\d+$/.test(remaining.trim())) this.options.budget.observe(Number(remaining), parseRateLimitReset(response.headers.get('ratelimit-reset')), ticket);
      if (response.status === 429) {
        const wait = parseRetryAfter(response.headers.get('retry-after'));
        if (wait !== undefined) this.options.budget.pause(wait);
      }
      return response;
    } catch (error) {
      if (context) {
        context.transportError = error;
        context.timedOut = timeout.aborted && context.signal?.aborted !== true;
      }
      throw error;
    }
  }
}

function isRefusal(error: unknown): boolean {
  return outboundRefusal(error) !== undefined;
}
