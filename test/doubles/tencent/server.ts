/**
 * @module The wire of a Tencent Cloud API 3.0 double on loopback: `POST /<service>/` with a JSON
 * body and the action in `X-TC-Action` (its version in `X-TC-Version`, region in
 * `X-TC-Region`), signed TC3-HMAC-SHA256 (signature.ts); every answer HTTP 200 with
 * `{"Response": {..., "RequestId"}}`, errors as `{"Response": {"Error": {"Code", "Message"},
 * "RequestId"}}`. Each request's parameters and each answer are checked against the service's
 * api.json (tencent-api-validator.ts): a request it forbids is refused as Tencent refuses one
 * (`InvalidParameter`), an answer it forbids is replaced by `InternalError`, and both are
 * recorded in `violations`. Faults for every vendor alike: Tencent's throttling
 * (`RequestLimitExceeded`, per action, over a sliding window), `InternalError` at a seeded
 * ratio, latency, and answers to chosen actions held back after the work is done.
 *
 * The call log records a throttled answer with status 429 and a fault with 500 (Tencent sends
 * both with HTTP 200; the log keeps what they mean, for the shared fault cases).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DoubleCall } from '../../support/vendor-double.js';
import { seededRandom } from '../../support/seeded-random.js';
import type { TencentApiValidator } from '../../support/tencent-api-validator.js';
import { checkTc3Signature } from './signature.js';

/** Tencent's error, thrown by a handler: answered in Tencent's error shape. */
export class TencentFault extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type TencentHandler = (params: Record<string, unknown>, region: string) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface TencentServiceDouble {
  validator: TencentApiValidator;
  handlers: Record<string, TencentHandler>;
}

export interface TencentServerOptions {
  /** By the first path segment: `cvm` serves `/cvm/`. */
  services: Record<string, TencentServiceDouble>;
  secretId: string;
  secretKey: string;
  /** At most `limit` requests of one action per `windowMs`, then RequestLimitExceeded. */
  rateLimit?: { limit: number; windowMs: number };
  latencyMs?: number;
  /** These actions are carried out at once but answered only after `ms`. */
  slowAnswers?: { operationIds: readonly string[]; ms: number };
}

export interface TencentServer {
  url: string;
  calls: DoubleCall[];
  violations: string[];
  setFaultRatio(ratio: number, seed?: number): void;
  stop(): Promise<void>;
}

function read(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const header = (request: IncomingMessage, name: string): string => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : '';
};

export async function startTencentServer(options: TencentServerOptions): Promise<TencentServer> {
  const calls: DoubleCall[] = [];
  const violations: string[] = [];
  const windows = new Map<string, number[]>();
  let faultRatio = 0;
  let random = seededRandom(1);

  function throttled(action: string): boolean {
    const limit = options.rateLimit;
    if (!limit) return false;
    const now = Date.now();
    const window = windows.get(action) ?? [];
    while (window.length > 0 && (window[0] ?? 0) <= now - limit.windowMs) window.shift();
    windows.set(action, window);
    if (window.length >= limit.limit) return true;
    window.push(now);
    return false;
  }

  /** The answer to one request: its logged status and its `Response`. */
  async function answer(request: IncomingMessage, body: Buffer): Promise<{ action: string; status: number; response: Record<string, unknown>; slow: boolean }> {
    const url = new URL(request.url ?? '/', 'http://double');
    const action = header(request, 'x-tc-action');
    const error = (status: number, code: string, message: string): { action: string; status: number; response: Record<string, unknown>; slow: boolean } => ({ action: action || '?', status, response: { Error: { Code: code, Message: message } }, slow: false });
    const service = options.services[url.pathname.split('/')[1] ?? ''];
    if (request.method !== 'POST' || !service || url.pathname !== `/${url.pathname.split('/')[1]}/`) return error(404, 'InvalidAction', `No service at ${request.method} ${url.pathname}.`);
    if (!service.validator.hasAction(action)) return error(400, 'InvalidAction', `The action ${action} does not exist.`);
    if (header(request, 'x-tc-version') !== service.validator.version) return error(400, 'NoSuchVersion', `The API version ${header(request, 'x-tc-version')} does not exist.`);
    const signature = checkTc3Signature({ method: 'POST', path: url.pathname, query: url.search.slice(1), headers: request.headers, body }, options.secretId, options.secretKey);
    if (signature) return error(401, signature.code, signature.message);
    if (throttled(action)) return error(429, 'RequestLimitExceeded', 'Your current request times equals to `limit` per second; please try again later.');
    if (faultRatio > 0 && random() < faultRatio) return error(500, 'InternalError', 'An internal error has occurred. Retry your request.');
    if (!header(request, 'content-type').startsWith('application/json')) return error(400, 'InvalidParameter', 'Content-Type must be application/json.');
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      return error(400, 'InvalidParameter', 'The request body is not JSON.');
    }
    const problems = service.validator.request(action, params);
    if (problems.length > 0) {
      violations.push(...problems.map((p) => `request ${p}`));
      return error(400, 'InvalidParameter', problems.join('; '));
    }
    const region = header(request, 'x-tc-region');
    try {
      const handler = service.handlers[action];
      if (!handler) return error(400, 'UnsupportedOperation', `The double does not model ${action}.`);
      const response = await handler(params as Record<string, unknown>, region);
      return { action, status: 200, response, slow: options.slowAnswers?.operationIds.includes(action) ?? false };
    } catch (fault) {
      if (fault instanceof TencentFault) return error(400, fault.code, fault.message);
      throw fault;
    }
  }

  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await read(request);
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      const result = await answer(request, body);
      const service = options.services[new URL(request.url ?? '/', 'http://double').pathname.split('/')[1] ?? ''];
      const full = { ...result.response, RequestId: randomUUID() };
      const problems = service && service.validator.hasAction(result.action) ? service.validator.response(result.action, full) : [];
      let sent: Record<string, unknown> = full;
      let status = result.status;
      if (problems.length > 0) {
        violations.push(...problems.map((p) => `answer ${p}`));
        sent = { Error: { Code: 'InternalError', Message: `the double's answer breaks the document: ${problems.join('; ')}` }, RequestId: full.RequestId };
        status = 500;
      }
      calls.push({ method: request.method ?? '', path: request.url ?? '', operationId: result.action, status });
      if (result.slow) await new Promise((resolve) => setTimeout(resolve, options.slowAnswers?.ms));
      response.writeHead(200, { 'content-type': 'application/json', 'x-tc-traceid': randomUUID() });
      response.end(JSON.stringify({ Response: sent }));
    })().catch((error: unknown) => {
      violations.push(`the double failed: ${String(error)}`);
      response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    violations,
    setFaultRatio(ratio, seed = 1) {
      faultRatio = ratio;
      random = seededRandom(seed);
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
