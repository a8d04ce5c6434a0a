/**
 * @module The HTTP side of cairn's Railway client: Railway's public GraphQL API (`POST
 * <CAIRN_RAILWAY_API_URL>/graphql/v2`, `Authorization: Bearer <API token>`) through the vendor
 * kit (outbound guard, deadlines, a 429's Retry-After waited out when short, a request
 * budget per token at Railway's 1,000 requests an hour), and Railway's errors as cairn's: an
 * `errors[]` saying "Not Authorized" (or a 401/403) → ValidationError on `api_key`, one saying
 * "not found" → NotFoundError naming what was asked for, a 429 longer than a few seconds →
 * RateLimitedError (and the token's later calls too, until it passes: rate-limit-memory.ts),
 * anything else → ProviderError with Railway's message. Connections
 * (`edges { node }`, `pageInfo { hasNextPage endCursor }`) are read page after page.
 */
import { VendorHttpClient, type VendorAnswer } from '../../drivers/kit/vendor-http.js';
import { summarise } from '../../drivers/kit/vendor-text.js';
import { ProviderError } from '../../model/errors.js';
import { platformFailure, refusedApiKey, unknownSubject } from '../shared/platform-errors.js';
import { platformBudget } from '../shared/platform-budgets.js';
import { rateLimitKey, refuseWhileLimited, remember } from '../shared/rate-limit-memory.js';

/** The path of Railway's public API below its base URL. */
export const RAILWAY_GRAPHQL_PATH = '/graphql/v2';

/** Railway's Hobby plan allows 1,000 requests an hour (Pro 10,000): cairn keeps to the lower one. */
const RAILWAY_BUDGET = { perHour: 1_000, burst: 50 };

export interface RailwayApiOptions {
  baseUrl: string;
  requestTimeoutMs?: number;
  /** The longest Retry-After waited out before answering RateLimitedError (default 5 s). */
  maxRetryAfterMs?: number;
}

/** The messages of a GraphQL answer's `errors[]`, when it has any. */
function graphqlErrors(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const errors = (body as Record<string, unknown>)['errors'];
  if (!Array.isArray(errors)) return [];
  return errors.map((e) => (typeof e === 'object' && e !== null && typeof (e as Record<string, unknown>)['message'] === 'string' ? String((e as Record<string, unknown>)['message']) : JSON.stringify(e)));
}

/** One page of a connection as Railway sends it. */
export interface Connection {
  edges: Array<{ node: unknown }>;
  pageInfo?: { hasNextPage: boolean; endCursor?: string | null };
}

export class RailwayApi {
  private readonly client: VendorHttpClient;
  private readonly limitKey: string;

  constructor(apiKey: string, options: RailwayApiOptions) {
    this.limitKey = rateLimitKey('Railway', options.baseUrl, apiKey);
    this.client = new VendorHttpClient({
      label: 'railway',
      baseUrl: options.baseUrl,
      authorize: () => ({ authorization: `Bearer ${apiKey}` }),
      readError: (body) => {
        const messages = graphqlErrors(body);
        return messages.length === 0 ? undefined : { message: messages.join('; ') };
      },
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      budget: platformBudget(this.limitKey, RAILWAY_BUDGET),
      retries: 2,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 5_000,
    });
  }

  /**
   * Runs one query and returns its `data`. `what` names the subject for a "not found"
   * (`project "p-1"`).
   */
  async query(document: string, variables: Record<string, unknown>, doing: string, what: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    refuseWhileLimited('Railway', this.limitKey);
    let answer: VendorAnswer;
    try {
      // GraphQL goes by POST, which the kit sends again only after a 429 (refused before it ran).
      answer = await this.client.call({ method: 'POST', path: RAILWAY_GRAPHQL_PATH, body: { query: document, variables }, doing, signal, accept: [400, 401, 403, 404] });
    } catch (error) {
      throw remember(this.limitKey, platformFailure('Railway', error));
    }
    const messages = graphqlErrors(answer.body);
    if (answer.status === 401 || answer.status === 403 || messages.some((m) => /not authori[sz]ed|unauthori[sz]ed|invalid token/i.test(m))) {
      throw refusedApiKey('Railway', messages[0] ?? `${answer.status} without a message`);
    }
    if (messages.some((m) => /not found/i.test(m)) || answer.status === 404) throw unknownSubject('Railway', what, messages[0]);
    if (messages.length > 0 || answer.status >= 300) {
      throw new ProviderError(`railway: ${doing}: ${answer.status} ${summarise(messages.join('; ') || 'no message')}`);
    }
    const data = (answer.body as Record<string, unknown> | undefined)?.['data'];
    if (typeof data !== 'object' || data === null) throw new ProviderError(`railway: ${doing}: the answer has no data`);
    return data as Record<string, unknown>;
  }

  /**
   * Every node of a connection, page after page: `page(after)` runs the query for one page and
   * picks the connection out of its data.
   */
  async nodes(page: (after: string | null) => Promise<Connection>, doing: string): Promise<unknown[]> {
    const nodes: unknown[] = [];
    let after: string | null = null;
    for (let count = 0; count < 1000; count++) {
      const connection = await page(after);
      if (!Array.isArray(connection.edges)) throw new ProviderError(`railway: ${doing}: the answer's connection has no edges`);
      nodes.push(...connection.edges.map((edge) => edge.node));
      const next = connection.pageInfo?.hasNextPage === true ? connection.pageInfo.endCursor ?? null : null;
      if (next === null || next === after) return nodes;
      after = next;
    }
    throw new ProviderError(`railway: ${doing}: still more pages after 1000; Railway's paging does not end`);
  }
}
