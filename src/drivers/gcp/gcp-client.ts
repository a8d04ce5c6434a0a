/**
 * @module The connection to Google Cloud through Google's own clients (`@googleapis/compute`,
 * `@googleapis/sqladmin`, signed in by `google-auth-library`'s JWT client from a service-account
 * key): one gaxios transporter carries both the OAuth2 token request and the API calls, through
 * cairn's guarded http/https agents (every connection's host checked against the outbound
 * policy), with the request timeout, and with gaxios's own retries off (`call` retries what is
 * safe, and the reconciler the rest). google-auth-library posts the signed JWT to Google's fixed
 * token URL whatever the key says; the transporter sends it to the key's `token_uri` instead, so
 * a key for another endpoint (a test double) is honoured. `call` takes a ticket from the
 * provider's rate budget, and maps Google's errors (`{error:{code,message,status,errors}}`, the
 * token endpoint's `{error, error_description}`) to cairn's, with Google's own message.
 */
import { createHash } from 'node:crypto';
import { compute_v1 } from '@googleapis/compute';
import { sqladmin_v1 } from '@googleapis/sqladmin';
import { gaxios, JWT } from 'google-auth-library';
import { guardedHttpAgent, guardedHttpsAgent } from '../../net/guarded-agent.js';
import { outboundRefusal } from '../../net/guarded-fetch.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { abortable } from '../kit/abortable-sleep.js';
import { sharedBudget, type RateBudget, type RateBudgetOptions } from '../kit/rate-budget.js';
import { parseRateLimitReset, parseRetryAfter, summarise } from '../kit/vendor-text.js';
import type { ServiceAccountKey } from './service-account.js';

/** Where google-auth-library sends every token request (gtoken's fixed URL). */
const LIBRARY_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** The scope cairn asks for: Compute Engine and Cloud SQL Admin both accept it. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * Compute Engine's published rate quotas: 1,500 requests a minute per project in each group
 * (reads, lists, writes, operation reads; cloud.google.com/compute/api-quota). cairn keeps all of
 * them under one budget of 1,500 a minute, bursts of 20.
 */
export const GCP_BUDGET: RateBudgetOptions = { perHour: 90_000, perMinute: 1_500, burst: 20 };

/** The reasons in Google's error list that mean a quota ran out: wait and send again. */
const QUOTA_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded', 'RATE_LIMIT_EXCEEDED']);

export interface GcpCall {
  /** What is being done, for messages: `insert instance "web-1"`. */
  doing: string;
  /** Reads (and deletes) are sent again after a 5xx; inserts are too, as their requestId makes a repeat harmless. */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

export interface GcpClientOptions {
  key: ServiceAccountKey;
  /** The API root (`spec.endpoint`), or undefined for Google's own. */
  endpoint: string | undefined;
  requestTimeoutMs: number;
  /** Times a call is sent again after a passing fault. Default 3. */
  retries?: number;
}

/** Google's error body, read: its message, its canonical status and the first reason. */
export interface GoogleErrorText {
  message: string;
  status: string | undefined;
  reason: string | undefined;
}

export function readGoogleError(body: unknown): GoogleErrorText | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown; error_description?: unknown }).error;
  if (typeof error === 'string') {
    // The OAuth2 token endpoint: `{ "error": "invalid_grant", "error_description": "..." }`.
    const description = (body as { error_description?: unknown }).error_description;
    return { message: typeof description === 'string' ? `${error}: ${description}` : error, status: error, reason: error };
  }
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { message?: unknown; status?: unknown; errors?: unknown };
  const first = Array.isArray(e.errors) ? (e.errors[0] as { reason?: unknown } | undefined) : undefined;
  return {
    message: typeof e.message === 'string' ? e.message : 'no message',
    status: typeof e.status === 'string' ? e.status : undefined,
    reason: typeof first?.reason === 'string' ? first.reason : undefined,
  };
}

/** A Google error (or a failure before any answer) as cairn's error; `where` starts the message. */
/**
 * The outbound guard's refusal, wherever it is in the chain: node-fetch (under gaxios) keeps a
 * failed connection's `code` and message but not the error itself.
 */
function guardRefusal(error: unknown): string | undefined {
  const refused = outboundRefusal(error);
  if (refused) return refused.message;
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if ((current as { code?: unknown }).code === 'ERR_CAIRN_OUTBOUND_REFUSED') return current.message.replace(/^.*?reason: /, '');
  }
  return undefined;
}

export function toCairnError(error: unknown, where: string): Error {
  const refused = guardRefusal(error);
  if (refused !== undefined) return new VendorRejectedError(`${where}: ${refused}`, { field: 'endpoint', cause: error });
  if (!(error instanceof gaxios.GaxiosError)) return error instanceof Error ? error : new Error(`${where}: ${String(error)}`);
  const response = error.response;
  if (!response) {
    const code = typeof error.code === 'string' ? ` (${error.code})` : '';
    return new VendorUnavailableError(`${where}: no answer from Google${code}: ${summarise(error.message)}`, { cause: error });
  }
  const status = response.status;
  const read = readGoogleError(response.data);
  const tokenRequest = response.config.url?.toString() === LIBRARY_TOKEN_URL || (read?.status !== undefined && /^invalid_|^unauthorized_client$/.test(read.status));
  const text = `${where}: ${status} ${read ? summarise(read.message) : summarise(error.message)}${read?.reason && read.reason !== read.status ? ` (${read.reason})` : ''}`;
  if (status === 429 || (read?.reason !== undefined && QUOTA_REASONS.has(read.reason))) {
    return new VendorUnavailableError(text, { status: 429, retryAfterMs: parseRetryAfter(typeof response.headers?.get === 'function' ? response.headers.get('retry-after') : null), cause: error });
  }
  if (status >= 500 || status === 408) return new VendorUnavailableError(text, { status, cause: error });
  if (tokenRequest) return new VendorAuthError(`${text}; the token endpoint refused the service-account key`, { status, cause: error });
  if (status === 401 || status === 403) return new VendorAuthError(text, { status, cause: error });
  return new VendorRejectedError(text, { status, cause: error });
}

export class GcpClient {
  readonly compute: compute_v1.Compute;
  readonly sqladmin: sqladmin_v1.Sqladmin;
  readonly project: string;
  readonly auth: JWT;
  private readonly budget: RateBudget;
  /** Requests sent (every attempt, the token's included), for benchmarks. */
  sent = 0;

  constructor(private readonly options: GcpClientOptions) {
    const { key, endpoint } = options;
    this.project = key.projectId;
    const httpAgent = guardedHttpAgent();
    const httpsAgent = guardedHttpsAgent();
    const transporter = new gaxios.Gaxios({ timeout: options.requestTimeoutMs, retry: false });
    transporter.interceptors.request.add({
      resolved: (config: gaxios.GaxiosOptionsPrepared) => {
        // google-auth-library posts to Google's token URL whatever the key says: send it to the key's.
        if (config.url.href === LIBRARY_TOKEN_URL) config.url = new URL(key.tokenUri);
        config.agent = config.url.protocol === 'https:' ? httpsAgent : httpAgent;
        config.retry = false;
        config.retryConfig = { ...config.retryConfig, retry: 0, noResponseRetries: 0 };
        config.timeout = options.requestTimeoutMs;
        this.sent++;
        return Promise.resolve(config);
      },
    });
    this.auth = new JWT({ email: key.clientEmail, key: key.privateKey, keyId: key.privateKeyId, scopes: [CLOUD_PLATFORM_SCOPE], transporter });
    const root = endpoint === undefined ? {} : { rootUrl: `${endpoint.replace(/\/+$/, '')}/` };
    this.compute = new compute_v1.Compute({ auth: this.auth, retry: false, ...root });
    this.sqladmin = new sqladmin_v1.Sqladmin({ auth: this.auth, retry: false, ...root });
    const fingerprint = createHash('sha256').update(`${key.clientEmail} ${key.privateKeyId ?? key.privateKey}`).digest('hex').slice(0, 16);
    this.budget = sharedBudget(`gcp ${endpoint ?? 'google'} ${this.project} ${fingerprint}`, GCP_BUDGET);
  }

  /** Runs one SDK call within the budget, sending it again after a passing fault; throws cairn's errors. */
  async call<T>(request: GcpCall, send: (options: { signal?: AbortSignal; timeout: number }) => Promise<{ data: T; headers?: unknown }>): Promise<T> {
    const retries = this.options.retries ?? 3;
    const where = `gcp: ${request.doing}`;
    for (let attempt = 0; ; attempt++) {
      const ticket = await this.budget.take(request.signal);
      try {
        const answer = await send({ ...(request.signal ? { signal: request.signal } : {}), timeout: this.options.requestTimeoutMs });
        this.follow(answer.headers, ticket);
        return answer.data;
      } catch (error) {
        if (error instanceof gaxios.GaxiosError && error.response) this.follow(error.response.headers, ticket);
        if (request.signal?.aborted) throw new VendorUnavailableError(`${where}: abandoned: ${String(request.signal.reason)}`, { cause: error });
        const mapped = toCairnError(error, where);
        const wait = this.retryDelay(request, mapped, attempt, retries);
        if (wait === undefined) throw mapped;
        await abortable(wait, request.signal);
      }
    }
  }

  /** Like `call`, but a 404 is `null` (observe, delete). */
  async find<T>(request: GcpCall, send: (options: { signal?: AbortSignal; timeout: number }) => Promise<{ data: T; headers?: unknown }>): Promise<T | null> {
    try {
      return await this.call(request, send);
    } catch (error) {
      if (error instanceof VendorRejectedError && error.status === 404) return null;
      throw error;
    }
  }

  private retryDelay(request: GcpCall, error: Error, attempt: number, retries: number): number | undefined {
    if (!(error instanceof VendorUnavailableError) || attempt >= retries) return undefined;
    if (error.status === 429) {
      const wait = error.retryAfterMs ?? 500 * 2 ** attempt;
      if (error.retryAfterMs !== undefined) this.budget.pause(wait);
      return wait <= 60_000 ? wait : undefined;
    }
    if (!request.idempotent) return undefined;
    const base = 200 * 2 ** attempt;
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  /** What the answer says is left of the quota, where it says (Google's API does not; a proxy may). */
  private follow(headers: unknown, ticket: number): void {
    // gaxios answers with node-fetch's Headers, not the global class: read whatever has `get`.
    const get = (headers as { get?: unknown } | undefined)?.get;
    if (typeof get !== 'function') return;
    const read = (name: string): string | null => (get as (name: string) => string | null).call(headers, name);
    const remaining = read('ratelimit-remaining');
    if (remaining !== null && /^\d+$/.test(remaining.trim())) this.budget.observe(Number(remaining), parseRateLimitReset(read('ratelimit-reset')), ticket);
  }
}
