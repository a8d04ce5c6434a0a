/**
 * @module A stateful double of Contabo's API on loopback, for the contabo driver's tests: the
 * OAuth2 password grant at `/auth/realms/contabo/protocol/openid-connect/token` (Keycloak's
 * `invalid_client` / `invalid_grant` refusals, tokens that expire after `tokenTtlS`, revocable),
 * data centers, standard images, instances (`provisioning` → `running` after `actionMs`; start,
 * stop and restart taking `actionMs`; `cancelInstance` setting `cancelDate` while the instance
 * keeps running), page/size paging with `_pagination`, the `search` filter over display names,
 * Contabo's error body `{ statusCode, message }`, and its limit as 429s. Every request and
 * answer on the document's paths is checked against Contabo's document
 * (test/vendor-apis/contabo/openapi.yaml), which also requires an `x-request-id` UUID4 on each.
 * It records the `userData` each create carried.
 */
import { startVendorDouble, vendorDocument, type CommonDoubleOptions, type DoubleAnswer, type DoubleRequest, type VendorDouble } from '../support/vendor-double.js';

const DOCUMENT = vendorDocument('contabo', 'openapi.yaml');

/**
 * Contabo's document gives an instance's `cancelDate` the regular expression `yyyy-mm-dd` (meant
 * as a hint of the format, which `format: date` already says): as a pattern it matches no date,
 * nor the empty text of an instance not cancelled (its `minLength: 0`). The loaded copy drops it.
 */
function dropDatePlaceholderPatterns(node: unknown, seen = new Set<object>()): void {
  if (typeof node !== 'object' || node === null || seen.has(node)) return;
  seen.add(node);
  const schema = node as Record<string, unknown>;
  if (schema['pattern'] === 'yyyy-mm-dd') Reflect.deleteProperty(schema, 'pattern');
  for (const value of Object.values(schema)) dropDatePlaceholderPatterns(value, seen);
}

/** Data centers: slug, name, regionSlug, regionName. */
const DATA_CENTERS: Array<[string, string, string, string]> = [
  ['EU1', 'European Union 1', 'EU', 'European Union'], ['EU2', 'European Union 2', 'EU', 'European Union'],
  ['US-central-1', 'United States Central 1', 'US-central', 'United States (Central)'], ['US-east-1', 'United States East 1', 'US-east', 'United States (East)'],
  ['UK1', 'United Kingdom 1', 'UK', 'United Kingdom'], ['SIN1', 'Singapore 1', 'SIN', 'Asia (Singapore)'], ['JPN1', 'Japan 1', 'JPN', 'Asia (Japan)'],
];

/** Standard images: id, name. */
const IMAGES: Array<[string, string]> = [
  ['66abf39a-ba6b-4ed4-b1f3-e9b0e1a7c2a1', 'debian-12'], ['d64d5c6c-9dda-4e38-8174-0ee282474d8a', 'debian-11'],
  ['afecbb85-e2fc-46f0-9684-b46b1faf00bb', 'ubuntu-22.04'], ['c2e4bf4b-6a2a-4e2e-9c5e-6f0f1f0c2b7d', 'ubuntu-24.04'], ['1e1c6f0a-6b8d-4a7a-9a8a-2f3e5a9b7c11', 'rockylinux-9'],
];

export interface ContaboDoubleOptions extends CommonDoubleOptions {
  clientId?: string;
  clientSecret?: string;
  apiUser?: string;
  apiPassword?: string;
  /** Seconds a token lives (Keycloak's `expires_in`). Default 300. */
  tokenTtlS?: number;
  /** The most items a page holds whatever `size` asks; small to make lists page. */
  maxPageSize?: number;
}

type Json = Record<string, unknown>;
type Status = 'provisioning' | 'running' | 'stopped';

interface InstanceState {
  id: number;
  displayName: string;
  productId: string;
  region: string;
  imageId: string;
  created: string;
  status: Status;
  /** The status a pending action ends in, and when. */
  becomes?: { status: Status; at: number };
  cancelDate: string;
  userData: string | undefined;
  ip: string;
}

export interface ContaboDouble extends VendorDouble {
  instances(): Array<{ id: number; displayName: string; productId: string; region: string; imageId: string; status: Status; cancelled: boolean; userData: string | undefined }>;
  /** Tokens issued so far. */
  tokensIssued(): number;
  /** Revokes every token issued: the API refuses them with 401 from now on. */
  revokeTokens(): void;
}

function error(status: number, _code: string, message: string): Json {
  return { statusCode: status, message };
}

function paged<T>(items: T[], query: DoubleRequest['query'], render: (item: T) => unknown, maxPageSize: number, path: string): DoubleAnswer {
  const size = Math.min(maxPageSize, Math.max(1, Number(query['size'] ?? 10)));
  const page = Math.max(1, Number(query['page'] ?? 1));
  const totalPages = Math.max(1, Math.ceil(items.length / size));
  const links = { first: `${path}?page=1&size=${size}`, self: `${path}?page=${page}&size=${size}`, last: `${path}?page=${totalPages}&size=${size}`, ...(page < totalPages ? { next: `${path}?page=${page + 1}&size=${size}` } : {}) };
  return { status: 200, body: { _pagination: { page, size, totalElements: items.length, totalPages }, data: items.slice((page - 1) * size, page * size).map(render), _links: links } };
}

export async function startContaboDouble(options: ContaboDoubleOptions = {}): Promise<ContaboDouble> {
  const client = { id: options.clientId ?? 'cairn-client', secret: options.clientSecret ?? options.token ?? 'contabo-test-token' };
  const user = { name: options.apiUser ?? 'ops@example.com', password: options.apiPassword ?? 'api-password' };
  const actionMs = options.actionMs ?? 150;
  const tokenTtlS = options.tokenTtlS ?? 300;
  const maxPageSize = options.maxPageSize ?? 100;
  const tokens = new Map<string, number>();
  const instances = new Map<number, InstanceState>();
  let issued = 0;
  let serial = 100200;

  function advance(): void {
    const now = Date.now();
    for (const i of instances.values()) {
      if (i.becomes && now >= i.becomes.at) {
        i.status = i.becomes.status;
        i.becomes = undefined;
      }
    }
  }

  function token(text: string): DoubleAnswer {
    const form = new URLSearchParams(text);
    if (form.get('grant_type') !== 'password') return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' } };
    if (form.get('client_id') !== client.id || form.get('client_secret') !== client.secret) return { status: 401, body: { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' } };
    if (form.get('username') !== user.name || form.get('password') !== user.password) return { status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };
    const value = `eyJ.contabo.${++issued}.${Math.random().toString(36).slice(2)}`;
    tokens.set(value, Date.now() + tokenTtlS * 1000);
    return { status: 200, body: { access_token: value, expires_in: tokenTtlS, refresh_expires_in: 1800, token_type: 'Bearer', scope: 'profile email' } };
  }

  const double = await startVendorDouble({
    document: DOCUMENT,
    amendDocument: (document) => dropDatePlaceholderPatterns(document),
    error,
    rateLimit: options.rateLimit,
    latencyMs: options.latencyMs,
    slowAnswers: options.slowAnswers,
    outsideDocument: { 'POST /auth/realms/contabo/protocol/openid-connect/token': (text) => token(text) },
    authenticate(headers) {
      const value = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      const until = value === undefined ? undefined : tokens.get(value);
      return until !== undefined && Date.now() < until ? null : { status: 401, body: error(401, 'unauthorized', 'Unauthorized') };
    },
    handlers(example) {
      const template = (example('retrieveInstance')['data'] as Json[])[0] ?? {};
      const imageTemplate = (example('retrieveImageList')['data'] as Json[])[0] ?? {};
      const dcTemplate = (example('retrieveDataCenterList')['data'] as Json[])[0] ?? {};

      function render(i: InstanceState): Json {
        advance();
        const ready = i.status !== 'provisioning';
        return {
          ...template, instanceId: i.id, name: `vmi${i.id}`, displayName: i.displayName, productId: i.productId, productName: 'VPS', region: i.region, dataCenter: `${i.region} 1`,
          imageId: i.imageId, status: i.status, createdDate: i.created, cancelDate: i.cancelDate, sshKeys: [], addOns: [], additionalIps: [], defaultUser: 'root',
          ipConfig: { v4: { ip: ready ? i.ip : '', netmaskCidr: 20, gateway: '203.0.113.1' }, v6: { ip: ready ? `2001:db8::${i.id.toString(16)}` : '', netmaskCidr: 64, gateway: 'fe80::1' } },
        };
      }

      function instance(r: DoubleRequest): InstanceState | DoubleAnswer {
        advance();
        const found = instances.get(Number(r.params['instanceId']));
        return found ?? { status: 404, body: error(404, 'not_found', `Entry Instance not found by instanceId: ${r.params['instanceId'] ?? ''}`) };
      }

      const bad = (message: string): DoubleAnswer => ({ status: 400, body: error(400, 'bad_request', message) });
      const conflict = (message: string): DoubleAnswer => ({ status: 409, body: error(409, 'conflict', message) });

      function power(r: DoubleRequest, to: Status, action: string): DoubleAnswer {
        const i = instance(r);
        if (!('id' in i)) return i;
        if (i.status === 'provisioning' || i.becomes) return conflict(`Instance ${i.id} is busy: ${i.status}`);
        i.becomes = { status: to, at: Date.now() + actionMs };
        return { status: 201, body: { data: [{ instanceId: i.id, tenantId: 'DE', customerId: '54321', action }], _links: { self: `/v1/compute/instances/${i.id}` } } };
      }

      return {
        retrieveDataCenterList: (r) =>
          paged(DATA_CENTERS, r.query, ([slug, name, regionSlug, regionName]) => ({ ...dcTemplate, slug, name, regionSlug, regionName, capabilities: ['VPS', 'VDS'], s3Url: `${slug.toLowerCase()}-s3.contabo.com`, tenantId: 'DE', customerId: '54321' }), maxPageSize, '/v1/data-centers'),
        retrieveImageList(r) {
          const standard = r.query['standardImage'];
          const all = standard === 'false' ? [] : IMAGES;
          return paged(all, r.query, ([imageId, name]) => ({ ...imageTemplate, imageId, name, description: name, standardImage: true, tags: [], format: 'qcow2', status: 'downloaded', errorMessage: '', url: '' }), maxPageSize, '/v1/compute/images');
        },
        retrieveInstancesList(r) {
          advance();
          const search = typeof r.query['search'] === 'string' ? r.query['search'] : undefined;
          const displayName = typeof r.query['displayName'] === 'string' ? r.query['displayName'] : undefined;
          const all = [...instances.values()].filter((i) => (search === undefined || i.displayName.includes(search) || `vmi${i.id}`.includes(search)) && (displayName === undefined || i.displayName === displayName));
          return paged(all, r.query, render, maxPageSize, '/v1/compute/instances');
        },
        createInstance(r) {
          const body = r.body as { imageId?: string; productId?: string; region?: string; displayName?: string; userData?: string };
          if (!IMAGES.some(([id]) => id === body.imageId)) return bad(`imageId ${body.imageId ?? ''} is not a known image`);
          if (!/^V\d+$/.test(body.productId ?? 'V92')) return bad(`productId ${body.productId ?? ''} is not a product`);
          if (!DATA_CENTERS.some(([, , region]) => region === (body.region ?? 'EU'))) return bad(`region ${body.region ?? ''} has no data center`);
          const id = serial++;
          const made: InstanceState = {
            id, displayName: body.displayName ?? '', productId: body.productId ?? 'V92', region: body.region ?? 'EU', imageId: body.imageId ?? '', created: new Date().toISOString(),
            status: 'provisioning', becomes: { status: 'running', at: Date.now() + actionMs }, cancelDate: '', userData: body.userData, ip: `203.0.113.${id % 250}`,
          };
          instances.set(id, made);
          return {
            status: 201,
            body: { data: [{ instanceId: id, createdDate: made.created, imageId: made.imageId, productId: made.productId, region: made.region, addOns: [], tenantId: 'DE', customerId: '54321', osType: 'Linux', sshKeys: [], status: 'provisioning' }], _links: { self: `/v1/compute/instances/${id}` } },
          };
        },
        retrieveInstance(r) {
          const i = instance(r);
          return 'id' in i ? { status: 200, body: { data: [render(i)], _links: { self: `/v1/compute/instances/${i.id}` } } } : i;
        },
        cancelInstance(r) {
          const i = instance(r);
          if (!('id' in i)) return i;
          if (i.cancelDate !== '') return conflict(`Instance ${i.id} is already cancelled`);
          const end = new Date(i.created);
          end.setUTCMonth(end.getUTCMonth() + 1);
          i.cancelDate = end.toISOString().slice(0, 10);
          return { status: 201, body: { data: [{ tenantId: 'DE', customerId: '54321', instanceId: i.id, cancelDate: i.cancelDate }], _links: { self: `/v1/compute/instances/${i.id}` } } };
        },
        start: (r) => power(r, 'running', 'start'),
        stop: (r) => power(r, 'stopped', 'stop'),
        restart: (r) => power(r, 'running', 'restart'),
      };
    },
  });
  return {
    ...double,
    instances: () => {
      advance();
      return [...instances.values()].map((i) => ({ id: i.id, displayName: i.displayName, productId: i.productId, region: i.region, imageId: i.imageId, status: i.status, cancelled: i.cancelDate !== '', userData: i.userData }));
    },
    tokensIssued: () => issued,
    revokeTokens: () => tokens.clear(),
  };
}
