/**
 * @module A stateful double of Google Cloud on loopback, speaking Google's REST wire format so
 * that Google's own clients (`@googleapis/compute`, `google-auth-library`) talk to it unmodified:
 * the OAuth2 token endpoint at `/token` (the test key's `token_uri`; JWT signatures verified,
 * token.ts), Compute Engine under `/compute/v1/` (compute.ts) and the Cloud SQL Admin API under
 * `/v1/` (sqladmin.ts), each request matched to its discovery method and checked against
 * Google's discovery document (compute.v1.json, sqladmin.v1.json) (path and query parameters,
 * body), each 2xx answer checked against the method's response schema
 * (test/support/discovery-validator.ts); what breaks the document is recorded in `violations`
 * and refused. Bearer tokens it issued only; faults for every test alike: a rate limit answered
 * as Google's quota error (429 RESOURCE_EXHAUSTED, reason `rateLimitExceeded`, with the
 * `RateLimit-*` headers every cairn double sends), 5xx answers (`backendError`), latency, and
 * slow answers to chosen methods (the crash test's window).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CommonDoubleOptions, DoubleCall } from '../../support/vendor-double.js';
import { seededRandom } from '../../support/seeded-random.js';
import { DiscoveryValidator } from '../../support/discovery-validator.js';
import { vendorDocument } from '../../support/vendor-double.js';
import { ComputeState, googleError, type ComputeAnswer, type ComputeRequest } from './compute.js';
import { SqlAdminState, type BackupRunState, type SqlInstanceState } from './sqladmin.js';
import { TokenEndpoint } from './token.js';

export const GCP_PROJECT = 'cairn-double';
export const GCP_CLIENT_EMAIL = 'cairn@cairn-double.iam.gserviceaccount.com';

let validators: { compute: DiscoveryValidator; sqladmin: DiscoveryValidator } | undefined;
/** The discovery documents, read once per process (about 0.3 s for Compute Engine's 4 MB). */
function discovery(): { compute: DiscoveryValidator; sqladmin: DiscoveryValidator } {
  validators ??= { compute: new DiscoveryValidator(vendorDocument('google', 'compute.v1.json')), sqladmin: new DiscoveryValidator(vendorDocument('google', 'sqladmin.v1.json')) };
  return validators;
}

/** The test service account's key pair, made once per process. */
let testKeys: { privateKeyPem: string; publicKey: KeyObject } | undefined;
export function testServiceAccountKeys(): { privateKeyPem: string; publicKey: KeyObject } {
  if (!testKeys) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    testKeys = { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
  }
  return testKeys;
}

/** A service-account key JSON as Google issues it, its `token_uri` the double's. */
export function testServiceAccountKey(url: string, privateKeyPem = testServiceAccountKeys().privateKeyPem): string {
  return JSON.stringify({
    type: 'service_account', project_id: GCP_PROJECT, private_key_id: '3f1c0d9a2b', private_key: privateKeyPem, client_email: GCP_CLIENT_EMAIL,
    client_id: '104857600000000000001', auth_uri: 'https://accounts.google.com/o/oauth2/auth', token_uri: `${url}/token`,
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs', universe_domain: 'googleapis.com',
  });
}

export interface GcpDoubleOptions extends Omit<CommonDoubleOptions, 'token'> {
  /** The most items a list page holds whatever `maxResults` asks (Google: 500); small so lists page. Default 3. */
  maxPerPage?: number;
}

export interface GcpDouble {
  url: string;
  calls: DoubleCall[];
  violations: string[];
  tokens: TokenEndpoint;
  compute: ComputeState;
  sql: SqlAdminState;
  /** The Cloud SQL instances the double holds now. */
  databases(): SqlInstanceState[];
  /** The Cloud SQL backup runs it holds now. */
  backupRuns(): BackupRunState[];
  failNext(count: number, status: number): void;
  setFaultRatio(ratio: number, seed?: number): void;
  /** The instances the double holds now. */
  instances(): Array<{ name: string; zone: string; machineType: string; status: string; labels: Record<string, string>; userData: string | null; sourceImage: string }>;
  stop(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startGcpDouble(options: GcpDoubleOptions = {}): Promise<GcpDouble> {
  const documents = discovery();
  const state = new ComputeState({ project: GCP_PROJECT, actionMs: options.actionMs ?? 150, maxPerPage: options.maxPerPage ?? 3 });
  const sql = new SqlAdminState({ project: GCP_PROJECT, actionMs: options.actionMs ?? 150, maxPerPage: options.maxPerPage ?? 3 });
  const handlers = { ...state.handlers(), ...sql.handlers() };
  const calls: DoubleCall[] = [];
  const violations: string[] = [];
  let failing = { count: 0, status: 503 };
  let faultRatio = 0;
  let random = seededRandom(1);
  const window: number[] = [];
  const tokens = new TokenEndpoint(new Map([[GCP_CLIENT_EMAIL, testServiceAccountKeys().publicKey]]), ['https://oauth2.googleapis.com/token']);

  function rateLimited(): { refused?: ComputeAnswer; headers: Record<string, string> } {
    const limit = options.rateLimit;
    if (!limit) return { headers: {} };
    const now = Date.now();
    while (window.length > 0 && (window[0] ?? 0) <= now - limit.windowMs) window.shift();
    const reset = Math.ceil(((window[0] ?? now) + limit.windowMs) / 1000);
    const headers = { 'ratelimit-limit': String(limit.limit), 'ratelimit-remaining': String(Math.max(0, limit.limit - window.length - 1)), 'ratelimit-reset': String(reset) };
    if (window.length >= limit.limit) {
      const refused = googleError(429, 'rateLimitExceeded', "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' of service 'compute.googleapis.com' for consumer 'project_number:104857600'.", 'usageLimits');
      return { refused, headers: { ...headers, 'ratelimit-remaining': '0', 'retry-after': String(Math.max(1, reset - Math.floor(now / 1000))) } };
    }
    window.push(now);
    return { headers };
  }

  function handle(method: string, target: URL, headers: IncomingMessage['headers'], text: string): ComputeAnswer & { methodId: string; headers?: Record<string, string> } {
    const path = target.pathname.replace(/^\//, '');
    const validator = path.startsWith('compute/') ? documents.compute : documents.sqladmin;
    const matched = validator.match(method, path);
    if (!matched) {
      violations.push(`${method} ${target.pathname}: not a method of Compute Engine's or Cloud SQL Admin's discovery document`);
      return { methodId: '?', ...googleError(404, 'notFound', `no method ${method} ${target.pathname}`) };
    }
    const { methodId, params } = matched;
    const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    if (bearer === undefined || !tokens.issued.has(bearer)) {
      return { methodId, ...googleError(401, 'authError', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.') };
    }
    if (params['project'] !== GCP_PROJECT) return { methodId, ...googleError(403, 'forbidden', `Permission denied on resource project ${params['project']}.`) };
    const limited = rateLimited();
    if (limited.refused) return { methodId, ...limited.refused, headers: limited.headers };
    let body: unknown;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      violations.push(`${methodId}: the body is not JSON`);
      return { methodId, ...googleError(400, 'parseError', 'Invalid JSON payload received.') };
    }
    const problems = validator.validateRequest(methodId, params, target.searchParams, body);
    if (problems.length > 0) {
      violations.push(...problems);
      return { methodId, ...googleError(400, 'invalid', `Invalid JSON payload received. ${problems.join('; ')}`) };
    }
    if (failing.count > 0 || (faultRatio > 0 && random() < faultRatio)) {
      if (failing.count > 0) failing.count--;
      return { methodId, ...googleError(failing.status, 'backendError', 'The service is currently unavailable.'), headers: limited.headers };
    }
    const handler = handlers[methodId];
    if (!handler) {
      violations.push(`${methodId}: the double has no handler (the driver called a method the double does not model)`);
      return { methodId, ...googleError(501, 'notImplemented', `${methodId} is not modelled`) };
    }
    const request: ComputeRequest = { params, query: target.searchParams, body };
    const answer = handler(request);
    if (answer.status >= 200 && answer.status < 300) {
      const wrong = validator.validateResponse(methodId, answer.body);
      if (wrong.length > 0) {
        violations.push(...wrong);
        return { methodId, ...googleError(500, 'backendError', 'the double answered outside the document') };
      }
    }
    return { methodId, ...answer, headers: limited.headers };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', 'http://double');
      const text = await readBody(req);
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      if (req.method === 'POST' && target.pathname === '/token') {
        const answer = tokens.answer(text);
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
        return;
      }
      let answer: ComputeAnswer & { methodId: string; headers?: Record<string, string> };
      try {
        answer = handle(req.method ?? 'GET', target, req.headers, text);
      } catch (error) {
        violations.push(`${req.method} ${target.pathname}: the double failed: ${(error as Error).stack ?? String(error)}`);
        answer = { methodId: '?', ...googleError(500, 'backendError', (error as Error).message) };
      }
      calls.push({ method: req.method ?? 'GET', path: target.pathname + target.search, operationId: answer.methodId, status: answer.status });
      if (options.slowAnswers?.operationIds.includes(answer.methodId)) await new Promise((resolve) => setTimeout(resolve, options.slowAnswers?.ms));
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    violations,
    tokens,
    compute: state,
    sql,
    databases: () => {
      sql.advance();
      return [...sql.instances.values()];
    },
    backupRuns: () => {
      sql.advance();
      return [...sql.backups];
    },
    failNext(count, status) {
      failing = { count, status };
    },
    setFaultRatio(ratio, seed = 1) {
      faultRatio = ratio;
      random = seededRandom(seed);
    },
    instances: () => {
      state.advance();
      return [...state.instances.values()].map((i) => ({ name: i.name, zone: i.zone, machineType: i.machineType, status: i.status, labels: i.labels, userData: i.userData, sourceImage: i.sourceImage }));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
