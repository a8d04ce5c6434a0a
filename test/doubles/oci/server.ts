/**
 * @module A stateful double of OCI's Compute, Virtual Network and Identity APIs (version
 * 20160918) on loopback, speaking OCI's REST wire format so the unmodified OCI SDK is its client:
 * every request's signature is checked (signature.ts) and answered 401 `NotAuthenticated` when it
 * fails; every request body and answer is checked against the SDK's own models
 * (test/support/oci-model-validator.ts) and what breaks them recorded in `violations`; lists page
 * at `maxPerPage` with `opc-next-page`; every answer has an `opc-request-id`; errors are OCI's
 * `{code, message}`; past the rate limit it answers 429 `TooManyRequests`; a launch with an
 * `opc-retry-token` seen before returns the first launch's instance (409 when its body differs).
 * Faults (5xx) and held answers to launches (`slowAnswers`) are for the shared fault and crash
 * tests; `instances()` shows what it holds, with the user data each launch carried, decoded.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { CommonDoubleOptions, DoubleCall } from '../../support/vendor-double.js';
import { OciModelValidator } from '../../support/oci-model-validator.js';
import { seededRandom } from '../../support/seeded-random.js';
import { ociTestKey, signatureProblem } from './signature.js';
import { ADS, OciState, REGION, SHAPES, SUBNET, TENANCY, USER, instanceJson, type InstanceRow } from './state.js';

/** The credential bundle that signs for every OCI double's tenancy (as `credentialsRef` JSON gives it). */
export function ociDoubleCredentials(): Record<string, string> {
  const key = ociTestKey();
  return { tenancy: TENANCY, user: USER, fingerprint: key.fingerprint, private_key: key.privateKeyPem, region: REGION, subnet: SUBNET };
}

export interface OciDoubleOptions extends Omit<CommonDoubleOptions, 'token'> {
  /** The most items a page holds whatever `limit` asks; small to make lists page. Default 3. */
  maxPerPage?: number;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The model the answer's body is, for the check: `Instance`, or `[Shape]` for a list. */
  model?: { pkg: 'oci-core' | 'oci-identity'; name: string; list?: boolean };
}

interface Route {
  operation: string;
  method: string;
  pattern: RegExp;
  /** The request body's model, when it has one. */
  body?: string;
  handle(match: RegExpMatchArray, query: URLSearchParams, body: unknown, headers: IncomingMessage['headers'], text: string): Answer;
}

export interface OciDouble {
  url: string;
  calls: DoubleCall[];
  violations: string[];
  state: OciState;
  /** The credentials that sign for this double's tenancy. */
  credentials: Record<string, string>;
  instances(): InstanceRow[];
  setFaultRatio(ratio: number, seed?: number): void;
  failNext(count: number, status: number): void;
  stop(): Promise<void>;
}

const validators = { 'oci-core': new OciModelValidator('oci-core'), 'oci-identity': new OciModelValidator('oci-identity') };

function error(status: number, code: string, message: string): Answer {
  return { status, body: { code, message } };
}

export async function startOciDouble(options: OciDoubleOptions = {}): Promise<OciDouble> {
  const key = ociTestKey();
  const state = new OciState(options.actionMs ?? 150);
  const keyId = `${state.tenancy}/${state.user}/${key.fingerprint}`;
  const maxPerPage = options.maxPerPage ?? 3;
  const calls: DoubleCall[] = [];
  const violations: string[] = [];
  let faultRatio = 0;
  let random = seededRandom(1);
  let failing = { count: 0, status: 503 };
  const window: number[] = [];

  function page<T>(items: T[], query: URLSearchParams): { items: T[]; headers: Record<string, string> } {
    const start = Number(query.get('page') ?? '0');
    const size = Math.min(Number(query.get('limit') ?? maxPerPage), maxPerPage);
    const slice = items.slice(start, start + size);
    return { items: slice, headers: start + size < items.length ? { 'opc-next-page': String(start + size) } : {} };
  }

  function list(items: unknown[], query: URLSearchParams, model: Answer['model']): Answer {
    const paged = page(items, query);
    return { status: 200, body: paged.items, headers: paged.headers, model: model && { ...model, list: true } };
  }

  function instance(match: RegExpMatchArray): InstanceRow | undefined {
    state.tick();
    return state.find(decodeURIComponent(match[1] ?? ''));
  }

  const notFound = (what: string): Answer => error(404, 'NotAuthorizedOrNotFound', `Authorization failed or requested resource not found: ${what}`);
  const core = (name: string): Answer['model'] => ({ pkg: 'oci-core', name });

  const routes: Route[] = [
    {
      operation: 'ListRegionSubscriptions', method: 'GET', pattern: /^\/20160918\/tenancies\/([^/]+)\/regionSubscriptions$/,
      handle: (m) => (decodeURIComponent(m[1] ?? '') !== state.tenancy ? notFound('tenancy')
        : { status: 200, body: [{ regionKey: 'FRA', regionName: REGION, status: 'READY', isHomeRegion: true }, { regionKey: 'AMS', regionName: 'eu-amsterdam-1', status: 'READY', isHomeRegion: false }], model: { pkg: 'oci-identity', name: 'RegionSubscription', list: true } }),
    },
    {
      operation: 'ListAvailabilityDomains', method: 'GET', pattern: /^\/20160918\/availabilityDomains$/,
      handle: (_m, q) => (q.get('compartmentId') !== state.tenancy ? notFound('compartment')
        : { status: 200, body: ADS.map((name) => ({ name, id: `ocid1.availabilitydomain.oc1..${name.toLowerCase().replace(/[^a-z0-9]/g, '')}`, compartmentId: state.tenancy })), model: { pkg: 'oci-identity', name: 'AvailabilityDomain', list: true } }),
    },
    {
      operation: 'ListShapes', method: 'GET', pattern: /^\/20160918\/shapes$/,
      handle: (_m, q) => {
        const ad = ADS.indexOf(q.get('availabilityDomain') ?? '') + 1;
        const shapes = SHAPES.filter((s) => ad === 0 || s.ads.includes(ad)).map((s) => ({
          shape: s.shape, ocpus: s.ocpus, memoryInGBs: s.memoryInGBs, isFlexible: s.isFlexible, processorDescription: 'test processor',
          ...(s.localDisksTotalSizeInGBs ? { localDisks: 1, localDisksTotalSizeInGBs: s.localDisksTotalSizeInGBs } : {}),
          ...(s.isFlexible ? { ocpuOptions: { min: 1, max: 64 }, memoryOptions: { minInGBs: 1, maxInGBs: 1024, defaultPerOcpuInGBs: s.memoryInGBs } } : {}),
        }));
        return list(shapes, q, core('Shape'));
      },
    },
    {
      operation: 'ListImages', method: 'GET', pattern: /^\/20160918\/images$/,
      handle: (_m, q) => {
        const compartment = q.get('compartmentId');
        const name = q.get('displayName');
        const images = state.images
          .filter((i) => (i.compartmentId === null || i.compartmentId === compartment) && (name === null || i.displayName === name))
          .sort((a, b) => b.timeCreated.localeCompare(a.timeCreated))
          .map((i) => ({ id: i.id, compartmentId: i.compartmentId ?? 'ocid1.compartment.oc1..platformimages', displayName: i.displayName, operatingSystem: i.operatingSystem, operatingSystemVersion: i.operatingSystemVersion, createImageAllowed: true, lifecycleState: 'AVAILABLE', timeCreated: i.timeCreated, freeformTags: {}, definedTags: {} }));
        return list(images, q, core('Image'));
      },
    },
    {
      operation: 'ListInstances', method: 'GET', pattern: /^\/20160918\/instances$/,
      handle: (_m, q) => {
        state.tick();
        return list(state.instances.filter((i) => i.compartmentId === q.get('compartmentId')).map(instanceJson), q, core('Instance'));
      },
    },
    {
      operation: 'LaunchInstance', method: 'POST', pattern: /^\/20160918\/instances$/, body: 'LaunchInstanceDetails',
      handle: (_m, _q, body, headers, text) => {
        const details = body as { availabilityDomain: string; compartmentId: string; displayName?: string; shape?: string; shapeConfig?: { ocpus: number; memoryInGBs: number }; sourceDetails?: { imageId?: string }; subnetId?: string; createVnicDetails?: { subnetId?: string }; freeformTags?: Record<string, string>; metadata?: Record<string, string> };
        const token = headers['opc-retry-token'] as string | undefined;
        const seen = token === undefined ? undefined : state.retryTokens.get(token);
        if (seen) {
          if (seen.body !== text) return error(409, 'IdempotencyConflict', 'the retry token was used with a different request body');
          state.tick();
          return { status: 200, body: instanceJson(state.find(seen.instanceId)!), model: core('Instance') };
        }
        if (!ADS.includes(details.availabilityDomain)) return error(400, 'InvalidParameter', `availabilityDomain ${details.availabilityDomain} is not valid`);
        const shape = SHAPES.find((s) => s.shape === details.shape);
        if (!shape || !shape.ads.includes(ADS.indexOf(details.availabilityDomain) + 1)) return error(400, 'InvalidParameter', `Shape ${details.shape ?? '(none)'} is not valid in ${details.availabilityDomain}`);
        if (shape.isFlexible !== (details.shapeConfig !== undefined)) return error(400, 'InvalidParameter', `shapeConfig is ${shape.isFlexible ? 'required for a flexible shape' : 'not allowed for a fixed shape'}`);
        const image = state.images.find((i) => i.id === details.sourceDetails?.imageId);
        if (!image) return notFound(`image ${details.sourceDetails?.imageId ?? '(none)'}`);
        const subnetId = details.createVnicDetails?.subnetId ?? details.subnetId;
        if (subnetId !== state.subnet) return notFound(`subnet ${subnetId ?? '(none)'}`);
        if (details.compartmentId !== state.tenancy) return notFound(`compartment ${details.compartmentId}`);
        const userData = details.metadata?.['user_data'];
        const made = state.launch({
          availabilityDomain: details.availabilityDomain, compartmentId: details.compartmentId, displayName: details.displayName ?? 'instance', shape: shape.shape, shapeConfig: details.shapeConfig,
          imageId: image.id, freeformTags: details.freeformTags ?? {}, metadata: details.metadata ?? {}, userData: userData === undefined ? null : Buffer.from(userData, 'base64').toString('utf8'), subnetId,
        });
        if (token !== undefined) state.retryTokens.set(token, { instanceId: made.id, body: text });
        return { status: 200, body: instanceJson(made), model: core('Instance') };
      },
    },
    {
      operation: 'GetInstance', method: 'GET', pattern: /^\/20160918\/instances\/([^/]+)$/,
      handle: (m) => {
        const found = instance(m);
        return found ? { status: 200, body: instanceJson(found), model: core('Instance') } : notFound('instance');
      },
    },
    {
      operation: 'InstanceAction', method: 'POST', pattern: /^\/20160918\/instances\/([^/]+)$/,
      handle: (m, q) => {
        const found = instance(m);
        if (!found || found.state === 'TERMINATED' || found.state === 'TERMINATING') return notFound('instance');
        const action = q.get('action');
        const allowed: Record<string, [string, string, string]> = { START: ['STOPPED', 'STARTING', 'RUNNING'], STOP: ['RUNNING', 'STOPPING', 'STOPPED'], SOFTRESET: ['RUNNING', 'STOPPING', 'RUNNING'] };
        const rule = action === null ? undefined : allowed[action];
        if (!rule) return error(400, 'InvalidParameter', `action ${action ?? '(none)'} is not an instance action`);
        if (found.state !== rule[0]) return error(409, 'IncorrectState', `instance is ${found.state}; ${action} needs it ${rule[0]}`);
        state.step(found, rule[1], rule[2]);
        return { status: 200, body: instanceJson(found), model: core('Instance') };
      },
    },
    {
      operation: 'UpdateInstance', method: 'PUT', pattern: /^\/20160918\/instances\/([^/]+)$/, body: 'UpdateInstanceDetails',
      handle: (m, _q, body) => {
        const found = instance(m);
        if (!found || found.state === 'TERMINATED' || found.state === 'TERMINATING') return notFound('instance');
        const details = body as { shape?: string; shapeConfig?: { ocpus: number; memoryInGBs: number } };
        if (details.shape !== undefined && details.shape !== found.shape) {
          const shape = SHAPES.find((s) => s.shape === details.shape);
          if (!shape || !shape.ads.includes(ADS.indexOf(found.availabilityDomain) + 1)) return error(400, 'InvalidParameter', `Shape ${details.shape} is not valid in ${found.availabilityDomain}`);
          if (found.state !== 'RUNNING' && found.state !== 'STOPPED') return error(409, 'IncorrectState', `instance is ${found.state}`);
          found.shape = shape.shape;
          found.shapeConfig = details.shapeConfig;
          // A running instance reboots into its new shape.
          if (found.state === 'RUNNING') state.step(found, 'STARTING', 'RUNNING');
        }
        return { status: 200, body: instanceJson(found), model: core('Instance') };
      },
    },
    {
      operation: 'TerminateInstance', method: 'DELETE', pattern: /^\/20160918\/instances\/([^/]+)$/,
      handle: (m) => {
        const found = instance(m);
        if (!found || found.state === 'TERMINATED') return notFound('instance');
        if (found.state !== 'TERMINATING') state.step(found, 'TERMINATING', 'TERMINATED');
        return { status: 204 };
      },
    },
    {
      operation: 'ListVnicAttachments', method: 'GET', pattern: /^\/20160918\/vnicAttachments$/,
      handle: (_m, q) => {
        state.tick();
        const attached = state.instances.filter((i) => i.compartmentId === q.get('compartmentId') && (q.get('instanceId') === null || i.id === q.get('instanceId')) && i.state !== 'PROVISIONING' && i.state !== 'TERMINATED');
        return list(attached.map((i) => ({ availabilityDomain: i.availabilityDomain, compartmentId: i.compartmentId, id: `ocid1.vnicattachment.oc1.${i.vnicId.slice(-12)}`, instanceId: i.id, lifecycleState: 'ATTACHED', subnetId: i.subnetId, vnicId: i.vnicId, nicIndex: 0, timeCreated: i.timeCreated })), q, core('VnicAttachment'));
      },
    },
    {
      operation: 'GetVnic', method: 'GET', pattern: /^\/20160918\/vnics\/([^/]+)$/,
      handle: (m) => {
        const found = state.instances.find((i) => i.vnicId === decodeURIComponent(m[1] ?? ''));
        return found ? { status: 200, body: { id: found.vnicId, availabilityDomain: found.availabilityDomain, compartmentId: found.compartmentId, isPrimary: true, lifecycleState: 'AVAILABLE', privateIp: '10.0.0.2', publicIp: found.publicIp, subnetId: found.subnetId, timeCreated: found.timeCreated, displayName: found.displayName }, model: core('Vnic') } : notFound('vnic');
      },
    },
  ];

  function rateLimited(): Record<string, string> | Answer | undefined {
    const limit = options.rateLimit;
    if (!limit) return undefined;
    const now = Date.now();
    while (window.length > 0 && (window[0] ?? 0) <= now - limit.windowMs) window.shift();
    const reset = Math.ceil(((window[0] ?? now) + limit.windowMs) / 1000);
    const headers = { 'ratelimit-limit': String(limit.limit), 'ratelimit-remaining': String(Math.max(0, limit.limit - window.length - 1)), 'ratelimit-reset': String(reset) };
    if (window.length >= limit.limit) return { ...error(429, 'TooManyRequests', 'Too many requests for the user'), headers: { ...headers, 'ratelimit-remaining': '0', 'retry-after': String(Math.max(1, reset - Math.floor(now / 1000))) } };
    window.push(now);
    return headers;
  }

  function checked(answer: Answer, operation: string): Answer {
    if (answer.body === undefined || answer.status >= 300 || !answer.model) return answer;
    const validator = validators[answer.model.pkg];
    const problems = answer.model.list ? validator.checkArray(answer.model.name, answer.body) : validator.check(answer.model.name, answer.body);
    if (problems.length === 0) return answer;
    violations.push(`answer to ${operation} breaks the SDK's model: ${problems.slice(0, 3).join('; ')}`);
    return error(500, 'InternalError', 'the double answered outside the model');
  }

  function handle(method: string, url: URL, headers: IncomingMessage['headers'], text: string): Answer & { operation: string } {
    const path = url.pathname;
    const route = routes.find((r) => r.method === method && r.pattern.test(path) && (r.operation !== 'InstanceAction' || url.searchParams.has('action')) && (r.operation !== 'GetInstance' || !url.searchParams.has('action')));
    if (!route) {
      violations.push(`${method} ${path}: not an operation the double models`);
      return { operation: '?', ...error(404, 'NotAuthorizedOrNotFound', `no route ${method} ${path}`) };
    }
    const operation = route.operation;
    const refused = signatureProblem({ method, pathAndQuery: path + url.search, headers, body: text }, keyId, key.publicKey);
    if (refused) return { operation, ...error(401, 'NotAuthenticated', `The required information to complete authentication was not provided or was incorrect: ${refused}`) };
    const limited = rateLimited();
    if (limited && 'status' in limited) return { operation, ...(limited as Answer) };
    let body: unknown;
    if (route.body) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        violations.push(`${operation}: the body is not JSON`);
        return { operation, ...error(400, 'InvalidParameter', 'the body is not JSON') };
      }
      const problems = validators['oci-core'].check(route.body, body);
      if (problems.length > 0) {
        violations.push(`${operation}: request breaks the SDK's model: ${problems.join('; ')}`);
        return { operation, ...error(400, 'InvalidParameter', problems.join('; ')) };
      }
    }
    if (failing.count > 0 || (faultRatio > 0 && random() < faultRatio)) {
      const status = failing.count > 0 ? failing.status : 503;
      if (failing.count > 0) failing.count--;
      return { operation, ...error(status, status === 503 ? 'ServiceUnavailable' : 'InternalServerError', 'The service is currently unavailable') };
    }
    const answer = checked(route.handle(path.match(route.pattern)!, url.searchParams, body, headers, text), operation);
    return { operation, ...answer, headers: { ...limited, ...answer.headers } };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://double');
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      let answer: Answer & { operation: string };
      try {
        answer = handle(req.method ?? 'GET', url, req.headers, text);
      } catch (failure) {
        violations.push(`${req.method} ${url.pathname}: the double failed: ${(failure as Error).stack ?? String(failure)}`);
        answer = { operation: '?', ...error(500, 'InternalError', (failure as Error).message) };
      }
      calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, operationId: answer.operation, status: answer.status });
      if (options.slowAnswers?.operationIds.includes(answer.operation)) await new Promise((resolve) => setTimeout(resolve, options.slowAnswers?.ms));
      res.writeHead(answer.status, { 'opc-request-id': randomUUID().replace(/-/g, '').toUpperCase(), ...(answer.body === undefined ? {} : { 'content-type': 'application/json' }), ...answer.headers });
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, calls, violations, state,
    credentials: ociDoubleCredentials(),
    instances: () => {
      state.tick();
      return state.instances.filter((i) => i.state !== 'TERMINATED');
    },
    setFaultRatio(ratio, seed = 1) {
      faultRatio = ratio;
      random = seededRandom(seed);
    },
    failNext(count, status) {
      failing = { count, status };
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
