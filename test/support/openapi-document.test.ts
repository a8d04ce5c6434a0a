/**
 * @module The response validator catches what it is for: leaked or misspelled fields, wrong
 * enums and formats, missing fields, undocumented paths, methods, statuses and media types;
 * and accepts responses the document allows. Also the request body schemas it hands out.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { documentedRoutes, requestBodySchema, validateResponse, type JsonSchema } from './openapi-document.js';

const SERVER_ID = '0b6c3f0e-8a4e-4c8e-9d2a-1f5b7c9e2a11';
const PROVIDER_ID = '6f1d2c3b-4a59-4e6f-8a7b-9c0d1e2f3a4b';
const NOW = '2025-01-02T03:04:05.000Z';

const base = {
  name: 'web-1',
  namespace: 'default',
  created_at: NOW,
  updated_at: NOW,
  generation: 2,
  observed_generation: 2,
  conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'running', last_transition_time: NOW }],
  labels: { team: 'shop' },
};

const server = {
  ...base,
  id: SERVER_ID,
  status: 'running',
  source: 'api',
  provider_id: PROVIDER_ID,
  region: 'eu-1',
  size: 'small',
  host: null,
  port: 22,
  user: 'root',
  image: 'debian-12',
  ssh_key_ids: [],
  ipv4: '203.0.113.7',
  ipv6: null,
  power: 'on',
  state: 'running',
  deletion_policy: 'Delete',
};

const provider = {
  ...base,
  name: 'sandbox',
  id: PROVIDER_ID,
  status: 'valid',
  source: 'git',
  vendor: 'sandbox',
  endpoint: null,
  credentials_hint: '…wxyz',
  tested_at: NOW,
};

const app = {
  ...base,
  name: 'shop',
  id: '7a7a7a7a-1111-4222-8333-944444444444',
  status: 'deploying',
  managed_by: 'api',
  server_id: SERVER_ID,
  source: { git: { url: 'https://example.com/shop.git', ref: 'main', path: '.' } },
  build: 'npm ci',
  command: 'node server.js',
  port: 8080,
  env: { NODE_ENV: 'production' },
  database_ids: [],
  health_check_path: '/healthz',
  state: 'running',
  url: null,
  current_deployment_id: null,
};

const problem = { type: 'https://cairn.dev/problems/not-found', title: 'Not found', status: 404, detail: `no server has id ${SERVER_ID}`, code: 'not_found' };

function getServer(body: unknown, status = 200, contentType = 'application/json; charset=utf-8'): string[] {
  return validateResponse({ method: 'GET', path: `/api/v1/servers/${SERVER_ID}`, status, contentType, body });
}

describe('validateResponse', () => {
  it('accepts records, lists and problems the document allows', () => {
    expect(getServer(server)).toEqual([]);
    expect(getServer(problem, 404, 'application/problem+json')).toEqual([]);
    expect(validateResponse({ method: 'get', path: '/api/v1/providers', status: 200, contentType: 'application/json', body: { items: [provider], next_cursor: 'abc' } })).toEqual([]);
    expect(validateResponse({ method: 'PUT', path: `/api/v1/apps/${app.id}`, status: 202, contentType: 'application/json', body: app })).toEqual([]);
  });

  it('reports a field the document does not name, such as a camelCase leak or a secret', () => {
    expect(getServer({ ...server, providerId: PROVIDER_ID }).join('\n')).toMatch(/"providerId"/);
    const leaked = validateResponse({ method: 'GET', path: `/api/v1/providers/${PROVIDER_ID}`, status: 200, contentType: 'application/json', body: { ...provider, credentials: { token: 'secret' } } });
    expect(leaked.join('\n')).toMatch(/"credentials"/);
    const tokenInList = validateResponse({
      method: 'GET', path: '/api/v1/tokens', status: 200, contentType: 'application/json',
      body: { items: [{ id: PROVIDER_ID, name: 'ci', role: 'member', created_at: NOW, expires_at: null, last_used_at: null, token: 'cairn_secret' }], next_cursor: null },
    });
    expect(tokenInList.join('\n')).toMatch(/\/items\/0: .*"token"/);
  });

  it('reports a missing field, a wrong enum value and a wrong format, each with its location', () => {
    const { ipv4: _ipv4, ...withoutIpv4 } = server;
    expect(getServer(withoutIpv4).join('\n')).toMatch(/required property 'ipv4'/);
    expect(getServer({ ...server, status: 'booting' }).join('\n')).toMatch(/\/status: .*allowed values/);
    expect(getServer({ ...server, created_at: 'yesterday' }).join('\n')).toMatch(/\/created_at: must match format "date-time"/);
    expect(getServer({ ...server, power: 'starting' }).join('\n')).toMatch(/\/power/);
    const noCursor = validateResponse({ method: 'GET', path: '/api/v1/servers', status: 200, contentType: 'application/json', body: { items: [server] } });
    expect(noCursor.join('\n')).toMatch(/next_cursor/);
  });

  it('holds an app to managed_by for its owner, since its source is where the code comes from', () => {
    const { managed_by: _owner, ...withoutOwner } = app;
    const problems = validateResponse({ method: 'GET', path: `/api/v1/apps/${app.id}`, status: 200, contentType: 'application/json', body: { ...withoutOwner, source: 'api' } });
    expect(problems.join('\n')).toMatch(/managed_by/);
    expect(problems.join('\n')).toMatch(/\/source/);
  });

  it('reports a problem document with an unknown code, or sent as application/json', () => {
    expect(getServer({ ...problem, code: 'no_such_thing' }, 404, 'application/problem+json').join('\n')).toMatch(/\/code/);
    expect(getServer(problem, 404, 'application/json').join('\n')).toMatch(/Content-Type application\/json is not documented/);
    expect(validateResponse({ method: 'GET', path: `/api/v1/servers/${SERVER_ID}`, status: 404, body: problem }).join('\n')).toMatch(/no Content-Type/);
  });

  it('reports an undocumented path, method or status', () => {
    expect(validateResponse({ method: 'GET', path: '/api/v1/no-such-route', status: 200, contentType: 'application/json', body: {} })).toEqual([
      'GET /api/v1/no-such-route → 200: the path is not documented',
    ]);
    expect(validateResponse({ method: 'PATCH', path: `/api/v1/servers/${SERVER_ID}`, status: 200, contentType: 'application/json', body: server }).join('\n')).toMatch(
      /method PATCH is not documented for \/api\/v1\/servers\/\{id\} \(documented: GET, PUT, DELETE\)/,
    );
    expect(getServer(problem, 418, 'application/problem+json').join('\n')).toMatch(/status 418 is not documented/);
  });

  it('holds a 204 to an empty body', () => {
    const revoke = { method: 'DELETE', path: `/api/v1/tokens/${PROVIDER_ID}`, status: 204 };
    expect(validateResponse({ ...revoke, body: undefined })).toEqual([]);
    expect(validateResponse({ ...revoke, body: '' })).toEqual([]);
    expect(validateResponse({ ...revoke, contentType: 'application/json', body: { ok: true } }).join('\n')).toMatch(/declares no body/);
  });

  it('maps the /v1 alias onto /api/v1 and ignores the query string and a trailing slash', () => {
    expect(validateResponse({ method: 'GET', path: `/v1/servers/${SERVER_ID}?x=1`, status: 200, contentType: 'application/json', body: server })).toEqual([]);
    expect(validateResponse({ method: 'GET', path: '/api/v1/servers/?limit=5', status: 200, contentType: 'application/json', body: { items: [], next_cursor: null } })).toEqual([]);
  });

  it('matches a literal segment before a {param}: /providers/vendors is not a provider id', () => {
    const vendors = { items: [{ id: 'sandbox', description: 'simulated', credential_fields: [{ name: 'token', description: 'API token', required: false }], managed_databases: [] }], next_cursor: null };
    expect(validateResponse({ method: 'GET', path: '/api/v1/providers/vendors', status: 200, contentType: 'application/json', body: vendors })).toEqual([]);
  });

  it('knows the root routes outside /api/v1, with their media types', () => {
    expect(validateResponse({ method: 'GET', path: '/healthz', status: 200, contentType: 'application/json', body: { status: 'ok' } })).toEqual([]);
    expect(validateResponse({ method: 'GET', path: '/metrics', status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '# HELP up\n' })).toEqual([]);
    expect(validateResponse({ method: 'GET', path: '/readyz', status: 503, contentType: 'application/json', body: { status: 'not ready', checks: { store: true, reconciler: false } } })).toEqual([]);
    expect(validateResponse({ method: 'GET', path: '/api/v1/healthz', status: 200, contentType: 'application/json', body: { status: 'ok' } })[0]).toMatch(/not documented/);
  });

  it('checks the dry-run plan and the apply result of POST /manifests', () => {
    const plan = {
      changes: [{ action: 'update', kind: 'Server', name: 'web-1', namespace: 'default', uid: SERVER_ID, diff: [{ path: 'spec.size', before: 'small', after: 'medium', forces_replacement: false, sensitive: false }], replacement_reasons: [] }],
      summary: { create: 0, import: 0, update: 1, replace: 0, delete: 0, noop: 0 },
    };
    const post = { method: 'POST', path: '/api/v1/manifests?dry_run=true', status: 200, contentType: 'application/json' };
    expect(validateResponse({ ...post, body: plan })).toEqual([]);
    expect(validateResponse({ ...post, body: { applied: [{ id: SERVER_ID, kind: 'Server', name: 'web-1', namespace: 'default', action: 'created' }] } })).toEqual([]);
    expect(validateResponse({ ...post, body: { ...plan, summary: { create: 0 } } }).length).toBeGreaterThan(0);
  });
});

describe('documentedRoutes', () => {
  it('gives full path templates: /api/v1 for the API, the root for probes, metrics and JWKS', () => {
    const routes = documentedRoutes().map((r) => `${r.method} ${r.path}`);
    expect(routes).toContain('GET /api/v1/servers/{id}');
    expect(routes).toContain('POST /api/v1/databases/{id}/backups/{backup_id}/restore');
    expect(routes).toContain('GET /healthz');
    expect(routes).toContain('GET /.well-known/jwks.json');
    expect(routes).toContain('GET /api/v1/openapi.json');
    expect(new Set(routes).size).toBe(routes.length);
  });
});

describe('requestBodySchema', () => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
  function compile(schema: JsonSchema | undefined): (body: unknown) => boolean {
    if (!schema) throw new Error('no schema');
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, discriminator: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    return (body) => validate(body);
  }

  it('stands alone: the create-server body accepts a valid body and refuses unknown or out-of-bounds fields', () => {
    const valid = compile(requestBodySchema('POST', '/api/v1/servers'));
    expect(valid({ name: 'web-1', provider_id: PROVIDER_ID, region: 'eu-1', size: 'small' })).toBe(true);
    expect(valid({ name: 'web-1', provider_id: PROVIDER_ID, region: 'eu-1', size: 'small', colour: 'red' })).toBe(false);
    expect(valid({ name: 'Web_1', provider_id: PROVIDER_ID, region: 'eu-1', size: 'small' })).toBe(false);
    expect(valid({ name: 'web-1', provider_id: 'not-a-uuid', region: 'eu-1', size: 'small' })).toBe(false);
  });

  it('takes the template as keyed in the document too, and refuses storage_gb for mongodb', () => {
    const valid = compile(requestBodySchema('post', '/databases'));
    expect(valid({ name: 'db', type: 'postgresql', server_id: SERVER_ID, version: '16', storage_gb: 20 })).toBe(true);
    expect(valid({ name: 'db', type: 'mongodb', server_id: SERVER_ID, version: '7', storage_gb: 20 })).toBe(false);
    expect(valid({ name: 'db', type: 'postgresql', server_id: SERVER_ID, version: '16', storage_gb: 0 })).toBe(false);
  });

  it('gives /deploy a shape per type: a database needs server_id, or region and size for a server of its own', () => {
    const valid = compile(requestBodySchema('POST', '/api/v1/deploy'));
    expect(valid({ type: 'server', provider: 'sandbox', region: 'eu-1', size: 'small' })).toBe(true);
    expect(valid({ type: 'database', provider: 'sandbox', engine: 'postgresql', version: '16', server_id: SERVER_ID })).toBe(true);
    expect(valid({ type: 'database', provider: 'sandbox', engine: 'postgresql', version: '16' })).toBe(false);
    expect(valid({ type: 'app', provider: 'sandbox', region: 'eu-1', size: 'small', source: { image: 'nginx:1' } })).toBe(true);
    expect(valid({ type: 'server', provider: 'sandbox', region: 'eu-1', size: 'small', engine: 'postgresql' })).toBe(false);
    expect(valid({ type: 'cluster', provider: 'sandbox' })).toBe(false);
  });

  it('is undefined for an operation without a body, and refuses an undocumented one', () => {
    expect(requestBodySchema('POST', '/api/v1/servers/{id}/start')).toBeUndefined();
    expect(() => requestBodySchema('POST', '/api/v1/no-such-route')).toThrow(/documents no POST/);
  });
});
