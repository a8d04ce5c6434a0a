/**
 * @module The HTTP side of cairn's Heroku client: Platform API v3 (`Accept:
 * application/vnd.heroku+json; version=3`, `Authorization: Bearer <API key>`) through the vendor
 * kit (the outbound guard, deadlines, retries of passing faults, the 429 Retry-After, a request
 * budget per key at Heroku's published 4,500 requests an hour), Heroku's paging (`Range` → 206
 * with `Next-Range`, sent back as it came), and Heroku's errors (`{id, message}`) as cairn's:
 * 401/403 → ValidationError on `api_key`, 404 → NotFoundError naming what was asked for, a 429
 * longer than a few seconds → RateLimitedError (and the key's later calls too, until it passes:
 * rate-limit-memory.ts), else ProviderError. The key is only ever in the
 * Authorization header; the budget is keyed by a fingerprint of it.
 */
import { VendorHttpClient, type VendorAnswer } from '../../drivers/kit/vendor-http.js';
import { platformFailure, refusedApiKey, unknownSubject } from '../shared/platform-errors.js';
import { platformBudget } from '../shared/platform-budgets.js';
import { rateLimitKey, refuseWhileLimited, remember } from '../shared/rate-limit-memory.js';

export const HEROKU_ACCEPT = 'application/vnd.heroku+json; version=3';

/** Heroku allows 4,500 requests an hour per account, refilled continuously. */
const HEROKU_BUDGET = { perHour: 4_500, burst: 100 };

/** Heroku's largest page. */
export const HEROKU_MAX_PAGE = 1000;

export interface HerokuApiOptions {
  baseUrl: string;
  requestTimeoutMs?: number;
  /** The longest Retry-After waited out before answering RateLimitedError (default 5 s). */
  maxRetryAfterMs?: number;
}

/** Heroku's error body's message, when the body is one. */
function herokuMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const message = (body as Record<string, unknown>)['message'];
  return typeof message === 'string' ? message : undefined;
}

/** A list's order: by which field, and which way (Heroku's `Range: <field> ..; order=desc`). */
export interface HerokuRange {
  field: string;
  order?: 'asc' | 'desc';
}

export class HerokuApi {
  private readonly client: VendorHttpClient;
  private readonly limitKey: string;

  constructor(apiKey: string, options: HerokuApiOptions) {
    this.limitKey = rateLimitKey('Heroku', options.baseUrl, apiKey);
    this.client = new VendorHttpClient({
      label: 'heroku',
      baseUrl: options.baseUrl,
      authorize: () => ({ authorization: `Bearer ${apiKey}` }),
      readError: (body) => {
        const message = herokuMessage(body);
        return message === undefined ? undefined : { message };
      },
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      budget: platformBudget(this.limitKey, HEROKU_BUDGET),
      retries: 2,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 5_000,
    });
  }

  /** One GET; `what` names the subject for a 404 (`app "shop"`). */
  async get(path: string, doing: string, what: string, signal?: AbortSignal, range?: string): Promise<VendorAnswer> {
    refuseWhileLimited('Heroku', this.limitKey);
    let answer: VendorAnswer;
    try {
      answer = await this.client.call({
        method: 'GET', path, doing, signal, accept: [401, 403, 404],
        headers: { accept: HEROKU_ACCEPT, ...(range === undefined ? {} : { range }) },
      });
    } catch (error) {
      throw remember(this.limitKey, platformFailure('Heroku', error));
    }
    if (answer.status === 401 || answer.status === 403) throw refusedApiKey('Heroku', herokuMessage(answer.body) ?? `${answer.status} without a message`);
    if (answer.status === 404) throw unknownSubject('Heroku', what, herokuMessage(answer.body));
    return answer;
  }

  /** The JSON object a GET answers. */
  async object(path: string, doing: string, what: string, signal?: AbortSignal): Promise<unknown> {
    return (await this.get(path, doing, what, signal)).body;
  }

  /**
   * Every item of a list, page after page: the first request asks for the largest page in
   * `range`'s order (when given), each next one sends the `Next-Range` of a 206 back as it came.
   * `enough` stops early once the items read so far answer the question (the latest good build).
   */
  async list(path: string, doing: string, what: string, options: { signal?: AbortSignal; range?: HerokuRange; enough?: (items: unknown[]) => boolean } = {}): Promise<unknown[]> {
    const items: unknown[] = [];
    const first = options.range && `${options.range.field} ..; max=${HEROKU_MAX_PAGE}${options.range.order === 'desc' ? ', order=desc' : ''}`;
    let range: string | undefined = first;
    for (let page = 0; page < 1000; page++) {
      const answer = await this.get(path, doing, what, options.signal, range);
      if (!Array.isArray(answer.body)) throw platformFailure('Heroku', new Error(`${doing}: the answer is not a list`));
      items.push(...(answer.body as unknown[]));
      const next = answer.status === 206 ? answer.headers.get('next-range') ?? undefined : undefined;
      if (next === undefined || next === range || options.enough?.(items)) return items;
      range = next;
    }
    throw platformFailure('Heroku', new Error(`${doing}: still more pages after 1000; Heroku's paging does not end`));
  }
}
