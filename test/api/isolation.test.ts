/**
 * @module Tenants and roles over real HTTP: every route with an `{id}` answers 404 to another
 * tenant's token, a viewer gets 403 on every write and on credentials, and requests without a
 * valid bearer token get 401 with `WWW-Authenticate: Bearer`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { documentedRoutes } from '../support/openapi-document.js';

const PASSWORD = 'a long enough password';

let api: ApiServer;
const tokens: Record<'owner' | 'viewer' | 'stranger', string> = { owner: '', viewer: '', stranger: '' };
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('owner@acme.test', PASSWORD, 'owner', 'acme');
  await api.addUser('viewer@acme.test', PASSWORD, 'viewer', 'acme');
  await api.addUser('owner@globex.test', PASSWORD, 'owner', 'globex');
  tokens.owner = (await api.login('owner@acme.test', PASSWORD)).access_token;
  tokens.viewer = (await api.login('viewer@acme.test', PASSWORD)).access_token;
  tokens.stranger = (await api.login('owner@globex.test', PASSWORD)).access_token;
  const as = { token: tokens.owner };
  ids.provider = (await api.call('POST', '/api/v1/providers', { ...as, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 'sandbox-token' } } })).body.id;
  ids.server = (await api.call('POST', '/api/v1/servers', { ...as, body: { name: 'web-1', provider_id: ids.provider, region: 'eu-1', size: 'small' } })).body.id;
  ids.database = (await api.call('POST', '/api/v1/databases', { ...as, body: { name: 'db-1', type: 'postgresql', server_id: ids.server, version: '16', storage_gb: 5 } })).body.id;
  ids.app = (await api.call('POST', '/api/v1/apps', { ...as, body: { name: 'app-1', server_id: ids.server, source: { image: 'nginx:1' } } })).body.id;
  await api.until(`/api/v1/databases/${ids.database}`, tokens.owner, (d) => d.status === 'available');
  ids.backup = (await api.call('POST', `/api/v1/databases/${ids.database}/backups`, as)).body.id;
  ids.operation = (await api.call('POST', `/api/v1/servers/${ids.server}/reboot`, as)).body.operation_id;
  ids.token = (await api.call('POST', '/api/v1/tokens', { ...as, body: { name: 'ci', role: 'viewer', expires_in_days: 30 } })).body.id;
  // Suspended: the repository is never fetched; the record is what the isolation checks need.
  ids.source = (await api.call('POST', '/api/v1/sources', { ...as, body: { name: 'infra', url: 'https://git.invalid/acme/infra.git', suspended: true } })).body.id;
  ids.alertRule = (await api.call('POST', '/api/v1/alert-rules', { ...as, body: { name: 'high-cpu', metric: 'cpu_percent', threshold: 90, selector: { server_ids: [ids.server] }, channels: [{ type: 'webhook', url: 'https://hooks.invalid/x', format: 'json' }] } })).body.id;
  ids.webhook = (await api.call('POST', '/api/v1/webhooks', { ...as, body: { url: 'https://hooks.invalid/events', events: ['resource.created'] } })).body.id;
}, 90_000);

afterAll(async () => {
  await api.stop();
});

/** A concrete path for a documented template, with acme's ids. */
function concrete(template: string): string {
  const collection = /^\/api\/v1\/([a-z-]+)\//.exec(template)?.[1] ?? '';
  const idFor: Record<string, string | undefined> = {
    providers: ids.provider, servers: ids.server, databases: ids.database, apps: ids.app, tokens: ids.token, operations: ids.operation,
    sources: ids.source, 'alert-rules': ids.alertRule, webhooks: ids.webhook,
  };
  return template.replace('{id}', idFor[collection] ?? 'missing').replace('{backup_id}', ids.backup ?? 'missing');
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * No bearer token: a webhook's signature is its credential (checked in test/gitops.test.ts and
 * test/billing.test.ts, test/app-webhook.test.ts), a one-time sign-in code is its own (test/sign-in-providers.test.ts).
 */
const PUBLIC = new Set(['/api/v1/auth/providers', '/api/v1/auth/login', '/api/v1/auth/refresh', '/api/v1/auth/exchange', '/api/v1/sources/{id}/webhook', '/api/v1/billing/webhook', '/api/v1/apps/{id}/webhook']);
/** Writes every role may do for itself (unlinking one's own identity is checked in test/sign-in-providers.test.ts, dashboard settings in test/dashboard/preferences.test.ts). */
const SELF_SERVICE = new Set(['POST /api/v1/auth/logout', 'DELETE /api/v1/auth/identities/{id}', 'PUT /api/v1/me/preferences']);
/** POSTs that change nothing, so a viewer may make them (analyzing a Heroku app only reads it; see test/migrations/). */
const READ_ONLY_POSTS = new Set(['POST /api/v1/migrations/platform-b/analyze']);

describe('tenant isolation', () => {
  const withId = documentedRoutes().filter((r) => r.path.includes('{id}') && !PUBLIC.has(r.path));

  it('covers every route with an id', () => {
    expect(withId.length).toBeGreaterThan(20);
  });

  it.each(withId.map((r) => [r.method.toUpperCase(), r.path] as const))('%s %s is 404 for another tenant', async (method, template) => {
    const answer = await api.call(method, concrete(template), { token: tokens.stranger, ...(WRITE_METHODS.has(method) && method !== 'DELETE' ? { body: {} } : {}) });
    expect(answer.status, answer.text).toBe(404);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body.code).toBe('not_found');
  });
});

describe('roles', () => {
  const writes = documentedRoutes().filter((r) => WRITE_METHODS.has(r.method.toUpperCase()) && r.path.startsWith('/api/v1/')
    && !PUBLIC.has(r.path) && !SELF_SERVICE.has(`${r.method.toUpperCase()} ${r.path}`) && !READ_ONLY_POSTS.has(`${r.method.toUpperCase()} ${r.path}`));

  it.each(writes.map((r) => [r.method.toUpperCase(), r.path] as const))('%s %s is 403 for a viewer', async (method, template) => {
    const answer = await api.call(method, concrete(template), { token: tokens.viewer, ...(method !== 'DELETE' ? { body: {} } : {}) });
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.code).toBe('forbidden');
  });

  it('keeps credentials from a viewer', async () => {
    const answer = await api.call('GET', `/api/v1/databases/${ids.database}/credentials`, { token: tokens.viewer });
    expect(answer.status).toBe(403);
  });

  it('lets a viewer read', async () => {
    const answer = await api.call('GET', `/api/v1/servers/${ids.server}`, { token: tokens.viewer });
    expect(answer.status).toBe(200);
    expect(answer.body.name).toBe('web-1');
  });
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate without a token or with a wrong one', async () => {
    for (const token of [undefined, 'not-a-token', `${tokens.owner.slice(0, -3)}abc`]) {
      const answer = await api.call('GET', '/api/v1/servers', token === undefined ? {} : { token });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(answer.body.code).toBe('unauthorized');
    }
  });

  it('accepts an API token in its role only', async () => {
    const created = await api.call('POST', '/api/v1/tokens', { token: tokens.owner, body: { name: 'ci-viewer', role: 'viewer', expires_in_days: 1 } });
    expect(created.status).toBe(201);
    const ci = created.body.token as string;
    expect((await api.call('GET', '/api/v1/servers', { token: ci })).status).toBe(200);
    expect((await api.call('POST', `/api/v1/servers/${ids.server}/stop`, { token: ci })).status).toBe(403);
    expect((await api.call('DELETE', `/api/v1/tokens/${created.body.id}`, { token: tokens.owner })).status).toBe(204);
    expect((await api.call('GET', '/api/v1/servers', { token: ci })).status).toBe(401);
  });
});
