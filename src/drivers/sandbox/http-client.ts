/**
 * @module A small JSON client for the sandbox vendor's API over global fetch: bearer token,
 * per-request timeout, and one mapping from what went wrong to cairn's vendor errors —
 * 429 → VendorUnavailableError with retryAfterMs; 5xx, network errors and timeouts →
 * VendorUnavailableError; 401/403 → VendorAuthError; other 4xx → VendorRejectedError with the
 * vendor's message and the field it named. Every message says what was being done. A URL a
 * tenant gave goes through the outbound guard (a refusal is a VendorRejectedError on
 * `endpoint`); an answer's body is summarised, never echoed at length.
 */
import { guardedFetch, outboundRefusal } from '../../net/guarded-fetch.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';

export interface SandboxHttpClientOptions {
  /** e.g. http://127.0.0.1:9100 */
  baseUrl: string;
  token: string;
  requestTimeoutMs: number;
  /** Prefix of every error message (default `sandbox`). */
  label?: string;
  /** The base URL is cairn's own (the in-process sandbox), not a tenant's: no outbound guard. */
  trusted?: boolean;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** What is being done, for error messages: `create server "web-1"`. */
  doing: string;
  /** Non-2xx statuses returned to the caller instead of thrown (e.g. 404 for observe/delete). */
  accept?: readonly number[];
  /** The driver call's signal (its deadline, cairn stopping): aborts the request when it fires. */
  signal?: AbortSignal | undefined;
}

export interface HttpAnswer {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code ? `${error.message} (${code}: ${cause.message})` : `${error.message} (${cause.message})`;
  }
  return error.message;
}

/** A vendor's text, one line and at most 200 characters: what it says is quoted, never relayed whole. */
function summarise(text: string): string {
  const line = [...text].map((c) => (c < ' ' || c === '\u007f' ? ' ' : c)).join('').replace(/ +/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The vendor's structured error message and field; a body that is not one is described, not echoed. */
function vendorMessage(body: unknown, fallback: string): { message: string; field?: string } {
  if (typeof body === 'object' && body !== null) {
    const record = body as Record<string, unknown>;
    const message = typeof record['message'] === 'string' ? summarise(record['message']) : fallback;
    return typeof record['field'] === 'string' ? { message, field: summarise(record['field']) } : { message };
  }
  return { message: typeof body === 'string' && body !== '' ? `${fallback} (an answer of ${body.length} characters that is not the vendor's JSON)` : fallback };
}

/** The call was given up by its caller (its deadline passed, cairn is stopping): the caller's reason, said as where it happened. */
function abandoned(where: string, reason: unknown): Error {
  const why = reason instanceof Error ? reason.message : String(reason);
  return new VendorUnavailableError(`${where}: abandoned: ${why}`, { cause: reason });
}

export class SandboxHttpClient {
  private readonly baseUrl: string;
  private readonly label: string;

  constructor(private readonly options: SandboxHttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.label = options.label ?? 'sandbox';
  }

  /** Sends one request; any non-2xx status not in `accept` is thrown as a vendor error. */
  async call(call: HttpCall): Promise<HttpAnswer> {
    const url = `${this.baseUrl}${call.path}`;
    const where = `${this.label}: ${call.doing}`;
    let response: Response;
    let text: string;
    try {
      const send = this.options.trusted ? fetch : (guardedFetch as unknown as typeof fetch);
      response = await send(url, {
        method: call.method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: call.signal ? AbortSignal.any([AbortSignal.timeout(this.options.requestTimeoutMs), call.signal]) : AbortSignal.timeout(this.options.requestTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      if (call.signal?.aborted) throw abandoned(where, call.signal.reason);
      const refused = outboundRefusal(error);
      if (refused) throw new VendorRejectedError(`${where}: ${refused.message}`, { field: 'endpoint', cause: error });
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new VendorUnavailableError(`${where}: no answer from ${this.baseUrl} within ${this.options.requestTimeoutMs} ms`, { cause: error });
      }
      throw new VendorUnavailableError(`${where}: request to ${this.baseUrl} failed: ${describeCause(error)}`, { cause: error });
    }
    const body = this.parseBody(text, response.status, where);
    if ((response.status >= 200 && response.status < 300) || call.accept?.includes(response.status)) {
      return { status: response.status, body };
    }
    throw this.toError(response, body, where);
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
    const { message, field } = vendorMessage(body, response.statusText || 'no message');
    const text = `${where}: ${status} ${message}`;
    if (status === 429) {
      return new VendorUnavailableError(text, { status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
    }
    if (status >= 500 || status === 408) return new VendorUnavailableError(text, { status });
    if (status === 401 || status === 403) return new VendorAuthError(text, { status });
    return new VendorRejectedError(text, { status, field });
  }
}
