/**
 * @module The harness every vendor double is built on: an HTTP server on loopback that checks
 * each request a driver sends against the vendor's own OpenAPI document (path, method,
 * parameters, body; refused in the vendor's error shape when wrong) and each answer the double
 * gives against the same document (a mismatch is recorded and answered 500, so the test fails).
 * The double itself is a table of handlers by the document's operationId. Faults are injected
 * here for every vendor alike: a rate limit answering 429 with `Retry-After` and `RateLimit-*`
 * headers, 5xx answers, latency. Every call is logged, for counting calls per server.
 */
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { seededRandom } from './seeded-random.js';

export interface DoubleRequest {
  operationId: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface DoubleAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type DoubleHandler = (request: DoubleRequest) => DoubleAnswer | Promise<DoubleAnswer>;

export interface VendorDoubleOptions {
  /** The vendor's document (a file; multi-file documents are followed). */
  document: string;
  /** The document's path prefix before its paths, e.g. `/v1` when the base URL ends in /v1. */
  basePath?: string;
  /** The double's operations by operationId; `example` gives a valid object of an operation's answer, built from the document's examples. */
  handlers(example: (operationId: string) => Record<string, unknown>): Record<string, DoubleHandler>;
  /** The vendor's error body. */
  error(status: number, code: string, message: string): unknown;
  /** Null when the request's credentials are good, else the refusal; `request` is for vendors that sign the whole request. */
  authenticate(headers: IncomingMessage['headers'], request: { method: string; url: URL; body: string }): DoubleAnswer | null;
  /** The vendor's published budget, for 429s: at most `limit` requests per `windowMs`. */
  rateLimit?: { limit: number; windowMs: number };
  latencyMs?: number;
  /** These operations are carried out at once but answered only after `ms`: the window in which a caller dies having changed the vendor without knowing it. */
  slowAnswers?: { operationIds: readonly string[]; ms: number };
  /**
   * Routes the document does not describe but the vendor serves (an OAuth token endpoint its
   * document explains in prose), by `METHOD /path`: given the raw body text, logged under their
   * route, not checked against the document.
   */
  outsideDocument?: Record<string, (text: string, headers: IncomingMessage['headers']) => DoubleAnswer>;
  /** Corrects a mistake in the vendor's document that no real answer could meet (said where it is done), in the loaded copy; the file stays as published. */
  amendDocument?: (document: Document) => void;
  /**
   * Further documents of the same vendor served by this double under their own path prefix
   * (IONOS's DBaaS APIs beside its Cloud API), each checked against its own document.
   */
  alsoServes?: ReadonlyArray<{ document: string; basePath: string; handlers: VendorDoubleOptions['handlers'] }>;
}

/** What every vendor double takes: its token, how long its asynchronous work runs, and the faults of the harness. */
export interface CommonDoubleOptions {
  token?: string;
  /** How long the vendor's asynchronous work (create, power, resize) runs. Default 150 ms. */
  actionMs?: number;
  /** The vendor's budget; tests pass a small one to provoke 429s. */
  rateLimit?: { limit: number; windowMs: number };
  latencyMs?: number;
  slowAnswers?: { operationIds: readonly string[]; ms: number };
}

export interface DoubleCall {
  method: string;
  path: string;
  operationId: string;
  status: number;
}

export interface VendorDouble {
  url: string;
  calls: DoubleCall[];
  /** Requests the document refuses and answers it does not allow: a test expects none. */
  violations: string[];
  /** The next `count` requests fail with `status` (e.g. 503). */
  failNext(count: number, status: number): void;
  /** Answers `ratio` of requests (seeded, repeatable) with 5xx. */
  setFaultRatio(ratio: number, seed?: number): void;
  stop(): Promise<void>;
}

const documents = new Map<string, Promise<Document>>();

/** A vendor's document under test/vendor-apis/, found from the repository's root (also when run compiled, from dist/). */
export function vendorDocument(...path: string[]): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
    dir = parent;
  }
  return join(dir, 'test', 'vendor-apis', ...path);
}

/** The document with its references resolved, read once per file. Lowercase `4xx` keys (some transcriptions use them) become `4XX`. */
export function loadVendorDocument(path: string): Promise<Document> {
  let loaded = documents.get(path);
  if (!loaded) {
    loaded = $RefParser.dereference(path, { dereference: { circular: 'ignore' } }).then((doc) => {
      typelessNullables(doc, new Set());
      booleanExclusiveBounds(doc, new Set());
      const unshared = doc as Document;
      unshared.paths = unshare(unshared.paths, []) as Document['paths'];
      for (const item of Object.values((doc as Document).paths ?? {})) {
        for (const op of Object.values(item ?? {})) {
          const responses = (op as { responses?: Record<string, unknown> }).responses;
          if (!responses || typeof responses !== 'object') continue;
          for (const code of Object.keys(responses)) if (/^[1-5]xx$/.test(code)) responses[code.toUpperCase()] = responses[code];
        }
      }
      return doc as Document;
    });
    documents.set(path, loaded);
  }
  return loaded;
}

/**
 * OpenAPI 3.0's `{ allOf: [X], nullable: true }` (no `type`) means "X or null"; Ajv refuses
 * `nullable` without `type`, so such schemas are rewritten as `anyOf: [X, null]`, in place.
 */
function typelessNullables(node: unknown, seen: Set<object>): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) typelessNullables(value, seen);
  if (schema['nullable'] === true && schema['type'] === undefined) {
    const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => ['allOf', 'anyOf', 'oneOf', '$ref'].includes(k)));
    for (const k of Object.keys(rest)) Reflect.deleteProperty(schema, k);
    Reflect.deleteProperty(schema, 'nullable');
    schema['anyOf'] = [rest, { type: 'null' }];
  }
}

/**
 * OpenAPI 3.0 (after JSON Schema draft 4) writes `exclusiveMinimum: true` beside `minimum`; Ajv
 * takes the later form, the bound itself (`exclusiveMinimum: 0`). Rewritten in place; `false`
 * (the default) is dropped.
 */
function booleanExclusiveBounds(node: unknown, seen: Set<object>): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) booleanExclusiveBounds(value, seen);
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    if (schema[exclusive] === true && typeof schema[bound] === 'number') {
      schema[exclusive] = schema[bound];
      Reflect.deleteProperty(schema, bound);
    } else {
      Reflect.deleteProperty(schema, exclusive);
    }
  }
}

/**
 * The operations as a tree: a schema the document shares between places (one `$ref` used twice)
 * becomes a copy in each, cycles left as they are. openapi-backend replaces every repeated
 * object by a `$ref` to its first place, which breaks when the repeat is a `properties` map
 * (Exoscale's document has such).
 */
function unshare(node: unknown, ancestors: object[]): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (ancestors.includes(node)) return node;
  const inner = [...ancestors, node];
  if (Array.isArray(node)) return node.map((item) => unshare(item, inner));
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, unshare(value, inner)]));
}

const sharedBackends = new Map<string, Promise<OpenAPIBackend>>();

/**
 * The document's request router and validators, built once per document and base path in a
 * process and shared by every double of it (a test file starts dozens): compiling a vendor
 * document's validators costs about half a second of CPU each time. A double keeps its own
 * state (handlers, calls, faults); the backend holds only the document and compiled validators.
 * `amend` (the same for every double of a document) is applied to the shared copy once.
 */
function sharedBackend(document: string, basePath: string, amend: ((document: Document) => void) | undefined): Promise<OpenAPIBackend> {
  const key = `${document}\n${basePath}`;
  let backend = sharedBackends.get(key);
  if (!backend) {
    backend = loadVendorDocument(document).then(async (definition) => {
      amend?.(definition);
      const api = new OpenAPIBackend({ definition, quick: true, validate: true, ajvOpts: { strict: false, validateFormats: false }, apiRoot: basePath === '' ? '/' : basePath });
      await api.init();
      return api;
    });
    sharedBackends.set(key, backend);
  }
  return backend;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return query;
}

export async function startVendorDouble(options: VendorDoubleOptions): Promise<VendorDouble> {
  const served = [
    { document: options.document, basePath: options.basePath ?? '', handlers: (example: Parameters<VendorDoubleOptions['handlers']>[0]) => options.handlers(example), amend: options.amendDocument },
    ...(options.alsoServes ?? []),
  ];
  const backends = await Promise.all(
    served.map(async (one) => {
      const api = await sharedBackend(one.document, one.basePath, 'amend' in one ? one.amend : undefined);
      const handlers = one.handlers((operationId) => structuredClone(api.mockResponseForOperation(operationId).mock as Record<string, unknown>));
      // The modelled operations' validators are compiled now, not on their first call, which would
      // answer far slower than the rest (hundreds of ms on Linode's document) and skew timing tests.
      // openapi-backend keeps them, so only the first double of a document compiles them.
      for (const operationId of Object.keys(handlers)) {
        api.validator.getRequestValidatorsForOperation(operationId);
        api.validator.getStatusBasedResponseValidatorForOperation(operationId);
      }
      return { api, handlers, basePath: one.basePath };
    }),
  );
  /** The document serving `path`: the one with the longest prefix of it. */
  function backendFor(path: string): (typeof backends)[number] {
    const fitting = backends.filter((b) => path === b.basePath || path.startsWith(`${b.basePath}/`)).sort((a, b) => b.basePath.length - a.basePath.length);
    return fitting[0] ?? (backends[0] as (typeof backends)[number]);
  }
  const calls: DoubleCall[] = [];
  const violations: string[] = [];
  let failing = { count: 0, status: 503 };
  let faultRatio = 0;
  let random = seededRandom(1);
  const window: number[] = [];
  /** Operations by method and path: openapi-backend tries every path's pattern on each match, slow on a document of hundreds (Linode's). */
  const matched = new Map<string, Operation | undefined>();
  function matchOperation(api: OpenAPIBackend, request: { method: string; path: string }): Operation | undefined {
    const key = `${request.method} ${request.path}`;
    if (!matched.has(key)) matched.set(key, api.matchOperation(request as Parameters<typeof api.matchOperation>[0]) || undefined);
    return matched.get(key);
  }

  function answerChecked(api: OpenAPIBackend, operation: Operation, answer: DoubleAnswer, what: string): DoubleAnswer {
    if (answer.body === undefined) return answer;
    const checked = api.validateResponse(answer.body, operation, answer.status);
    if (checked.errors?.length) {
      violations.push(`answer to ${what} (${answer.status}) breaks the document: ${JSON.stringify(checked.errors.slice(0, 3))}`);
      return { status: 500, body: options.error(500, 'double_broken', 'the double answered outside the document') };
    }
    return answer;
  }

  function rateLimited(): DoubleAnswer | null {
    const limit = options.rateLimit;
    if (!limit) return null;
    const now = Date.now();
    while (window.length > 0 && (window[0] ?? 0) <= now - limit.windowMs) window.shift();
    const reset = Math.ceil(((window[0] ?? now) + limit.windowMs) / 1000);
    const headers = { 'ratelimit-limit': String(limit.limit), 'ratelimit-remaining': String(Math.max(0, limit.limit - window.length - 1)), 'ratelimit-reset': String(reset) };
    if (window.length >= limit.limit) {
      const retryAfter = Math.max(1, reset - Math.floor(now / 1000));
      return { status: 429, body: options.error(429, 'rate_limit_exceeded', 'limit of requests per time reached'), headers: { ...headers, 'ratelimit-remaining': '0', 'retry-after': String(retryAfter) } };
    }
    window.push(now);
    return { status: 0, headers };
  }

  async function handle(method: string, url: URL, headers: IncomingMessage['headers'], text: string): Promise<DoubleAnswer & { operationId: string }> {
    let body: unknown;
    const contentType = String(headers['content-type'] ?? 'application/json');
    try {
      // A body the caller marked as something else than JSON (Scaleway's text/plain user data) is handed over as text.
      body = text === '' ? undefined : contentType.includes('json') ? (JSON.parse(text) as unknown) : text;
    } catch {
      violations.push(`${method} ${url.pathname}: body is not JSON`);
      return { operationId: '?', status: 400, body: options.error(400, 'json_error', 'the body is not JSON') };
    }
    const request = { method: method.toLowerCase(), path: url.pathname, query: queryOf(url), headers: headers as Record<string, string>, body };
    const { api, handlers } = backendFor(url.pathname);
    const operation = matchOperation(api, request);
    if (!operation?.operationId) {
      violations.push(`${method} ${url.pathname}: not an operation of the document`);
      return { operationId: '?', status: 404, body: options.error(404, 'not_found', `no route ${method} ${url.pathname}`) };
    }
    const operationId = operation.operationId;
    const refused = options.authenticate(headers, { method, url, body: text });
    if (refused) return { operationId, ...answerChecked(api, operation, refused, operationId) };
    const limited = rateLimited();
    if (limited && limited.status === 429) return { operationId, ...answerChecked(api, operation, limited, operationId) };
    const checked = api.validateRequest(request, operation);
    if (checked.errors?.length) {
      const message = checked.errors.map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
      violations.push(`${operationId}: request breaks the document: ${message}`);
      return { operationId, ...answerChecked(api, operation, { status: 400, body: options.error(400, 'invalid_input', message) }, operationId) };
    }
    if (failing.count > 0 || (faultRatio > 0 && random() < faultRatio)) {
      if (failing.count > 0) failing.count--;
      return { operationId, ...answerChecked(api, operation, { status: failing.status, body: options.error(failing.status, 'unavailable', 'service temporarily unavailable') }, operationId) };
    }
    const handler = handlers[operationId];
    if (!handler) {
      violations.push(`${operationId}: the double has no handler (the driver called an operation the double does not model)`);
      return { operationId, status: 501, body: options.error(501, 'not_implemented', `${operationId} is not modelled`) };
    }
    const params = api.router.parseRequest(request, operation).params as Record<string, string>;
    const answer = await handler({ operationId, params, query: request.query, headers, body });
    return { operationId, ...answerChecked(api, operation, { ...answer, headers: { ...limited?.headers, ...answer.headers } }, operationId) };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://double');
      const text = await readBody(req);
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      let answer: DoubleAnswer & { operationId: string };
      const route = `${req.method ?? 'GET'} ${url.pathname}`;
      const outside = options.outsideDocument?.[route];
      try {
        answer = outside ? { operationId: route, ...outside(text, req.headers) } : await handle(req.method ?? 'GET', url, req.headers, text);
      } catch (error) {
        violations.push(`${req.method} ${url.pathname}: the double failed: ${(error as Error).stack ?? String(error)}`);
        answer = { operationId: '?', status: 500, body: options.error(500, 'double_failed', (error as Error).message) };
      }
      calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, operationId: answer.operationId, status: answer.status });
      if (options.slowAnswers?.operationIds.includes(answer.operationId)) await new Promise((resolve) => setTimeout(resolve, options.slowAnswers?.ms));
      res.writeHead(answer.status, { ...(answer.body === undefined ? {} : { 'content-type': 'application/json' }), ...answer.headers });
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${options.basePath ?? ''}`,
    calls,
    violations,
    failNext(count, status) {
      failing = { count, status };
    },
    setFaultRatio(ratio, seed = 1) {
      faultRatio = ratio;
      random = seededRandom(seed);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
