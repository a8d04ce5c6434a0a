/**
 * @module The HTTP client every cloud vendor's driver is built on. One request goes: the
 * provider's rate budget → the vendor's auth hook (a bearer header, or a signature over the
 * prepared request) → the outbound guard (a tenant's endpoint never reaches cairn's private
 * network) → the vendor, with a deadline and the caller's AbortSignal. Answers are mapped once
 * for all vendors: 2xx (and statuses the caller accepts, e.g. 404 for observe) are returned;
 * 429 → wait for `Retry-After` (the whole provider pauses) and send again; 5xx, timeouts and
 * refused connections → back off and send again when the method is idempotent, else
 * VendorUnavailableError; 401/403 → VendorAuthError; other 4xx → VendorRejectedError with the
 * vendor's own message and field. Every message says which vendor and what was being done.
 */
import { guardedFetch, outboundRefusal } from '../../net/guarded-fetch.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { abortable } from './abortable-sleep.js';
import type { RateBudget } from './rate-budget.js';
import { describeCause, parseRateLimitReset, parseRetryAfter, summarise } from './vendor-text.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface VendorRequest {
  method: HttpMethod;
  /** Below the base URL, e.g. `/servers/42`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Headers of this request besides the client's own, e.g. Linode's `X-Filter`. */
  headers?: Readonly<Record<string, string>>;
  body?: unknown;
  /** A body sent as it is, not as JSON, with its content type (Scaleway's user data is `text/plain`). */
  text?: { contentType: string; body: string };
  /** What is being done, for messages: `create server "web-1"`. */
  doing: string;
  /** Non-2xx statuses returned instead of thrown (404 for observe and delete). */
  accept?: readonly number[];
  /** The driver call's deadline or cancellation. */
  signal?: AbortSignal | undefined;
}

export interface VendorAnswer {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
  headers: Headers;
}

/** What an auth hook sees: the request as it will be sent. */
export interface PreparedRequest {
  method: HttpMethod;
  url: URL;
  /** The text sent (JSON, or the request's own text body), if any. */
  body: string | undefined;
}

/** A vendor's error body read into a message (and the field it names, when it does). */
export interface VendorErrorText {
  message: string;
  field?: string;
  /** The vendor says this passes by itself (a resource locked by a running action): retried, never a stall. */
  passing?: boolean;
}

export interface VendorHttpOptions {
  /** The vendor's id, first word of every message. */
  label: string;
  baseUrl: string;
  /** Headers that authenticate this request (a bearer token, a request signature). */
  authorize(request: PreparedRequest): Record<string, string> | Promise<Record<string, string>>;
  /** Reads the vendor's error shape; undefined when the body is not one. */
  readError(body: unknown): VendorErrorText | undefined;
  requestTimeoutMs: number;
  budget?: RateBudget;
  /** Times an idempotent request (or one refused with 429) is sent again. Default 3. */
  retries?: number;
  /** First back-off in ms, doubled each time, with jitter. Default 200. */
  backoffMs?: number;
  /** Longest wait for a 429's Retry-After before giving up to the reconciler. Default 60 s. */
  maxRetryAfterMs?: number;
  /** The base URL is cairn's own, not a tenant's: no outbound guard (tests of the kit only). */
  trusted?: boolean;
}

/** The call was given up by its caller (its deadline passed, cairn is stopping): the caller's reason, said as where it happened. */
function abandoned(where: string, reason: unknown): Error {
  const why = reason instanceof Error ? reason.message : String(reason);
  return new VendorUnavailableError(`${where}: abandoned: ${why}`, { cause: reason });
}

const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

export class VendorHttpClient {
  private readonly baseUrl: string;
  /** Requests sent (every attempt), for benchmarks: calls per server. */
  sent = 0;

  constructor(private readonly options: VendorHttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** Sends the request, again after passing faults as described above; throws cairn's vendor errors. */
  async call(request: VendorRequest): Promise<VendorAnswer> {
    const retries = this.options.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(request);
      } catch (error) {
        const wait = this.retryDelay(request, error, attempt, retries);
        if (wait === undefined) throw error;
        await abortable(wait, request.signal);
      }
    }
  }

  /** How long to wait before sending again, or undefined to give up. */
  private retryDelay(request: VendorRequest, error: unknown, attempt: number, retries: number): number | undefined {
    if (!(error instanceof VendorUnavailableError) || attempt >= retries || request.signal?.aborted) return undefined;
    if (error.status === 429) {
      // Refused before it was carried out: safe to send again whatever the method.
      const wait = error.retryAfterMs ?? this.backoff(attempt);
      return wait <= (this.options.maxRetryAfterMs ?? 60_000) ? wait : undefined;
    }
    return IDEMPOTENT.has(request.method) ? this.backoff(attempt) : undefined;
  }

  private backoff(attempt: number): number {
    const base = (this.options.backoffMs ?? 200) * 2 ** attempt;
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  private url(request: VendorRequest): URL {
    const url = new URL(`${this.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  private async once(request: VendorRequest): Promise<VendorAnswer> {
    const where = `${this.options.label}: ${request.doing}`;
    const ticket = await this.options.budget?.take(request.signal);
    const json = request.body === undefined ? undefined : JSON.stringify(request.body);
    const prepared: PreparedRequest = { method: request.method, url: this.url(request), body: request.text?.body ?? json };
    const contentType = request.text?.contentType ?? (json === undefined ? undefined : 'application/json');
    const headers = {
      accept: 'application/json',
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
      ...request.headers,
      ...(await this.options.authorize(prepared)),
    };
    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    this.sent++;
    try {
      const send = this.options.trusted ? fetch : (guardedFetch as unknown as typeof fetch);
      response = await send(prepared.url, { method: request.method, headers, body: prepared.body, signal });
      text = await response.text();
    } catch (error) {
      const refused = outboundRefusal(error);
      if (refused) throw new VendorRejectedError(`${where}: ${refused.message}`, { field: 'endpoint', cause: error });
      if (request.signal?.aborted) throw abandoned(where, request.signal.reason);
      if (timeout.aborted) throw new VendorUnavailableError(`${where}: no answer from ${this.baseUrl} within ${this.options.requestTimeoutMs} ms`, { cause: error });
      throw new VendorUnavailableError(`${where}: request to ${this.baseUrl} failed: ${describeCause(error)}`, { cause: error });
    }
    this.followRateLimit(response, ticket);
    const body = this.parseBody(text, response.status, where);
    if ((response.status >= 200 && response.status < 300) || request.accept?.includes(response.status)) {
      return { status: response.status, body, headers: response.headers };
    }
    throw this.toError(response, body, where);
  }

  private followRateLimit(response: Response, ticket: number | undefined): void {
    const budget = this.options.budget;
    if (!budget) return;
    const remaining = response.headers.get('ratelimit-remaining');
    if (remaining !== null && /^\d+$/.test(remaining.trim())) budget.observe(Number(remaining), parseRateLimitReset(response.headers.get('ratelimit-reset')), ticket);
    if (response.status === 429) {
      const wait = parseRetryAfter(response.headers.get('retry-after'));
      if (wait !== undefined) budget.pause(wait);
    }
  }

  private parseBody(text: string, status: number, where: string): unknown {
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      if (status >= 200 && status < 300) {
        throw new VendorUnavailableError(`${where}: the ${status} answer is not JSON (${text.length} characters); is this the vendor's API?`, { status, cause: error });
      }
      return text;
    }
  }

  private toError(response: Response, body: unknown, where: string): Error {
    const status = response.status;
    const read = this.options.readError(body);
    const fallback = typeof body === 'string' && body !== '' ? `${response.statusText || 'no message'} (an answer of ${body.length} characters that is not the vendor's JSON)` : response.statusText || 'no message';
    const text = `${where}: ${status} ${read ? summarise(read.message) : fallback}`;
    if (status === 429) return new VendorUnavailableError(text, { status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
    if (status >= 500 || status === 408 || read?.passing === true) return new VendorUnavailableError(text, { status });
    if (status === 401 || status === 403) return new VendorAuthError(text, { status });
    return new VendorRejectedError(text, { status, ...(read?.field === undefined ? {} : { field: summarise(read.field) }) });
  }
}
