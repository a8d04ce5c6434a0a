/**
 * @module Fuzzing every route's body over real HTTP (fast-check): whatever arrives — any JSON,
 * fields of the route's own schema with any values, non-JSON — the answer is never a 5xx, the
 * server stays up, and every 4xx is a problem document.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { documentedRoutes, requestBodySchema } from '../support/openapi-document.js';

const RUNS_PER_ROUTE = 20;
const PASSWORD = 'fuzzing password!';

let api: ApiServer;
let token = '';
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('fuzz@example.com', PASSWORD, 'owner');
  token = (await api.login('fuzz@example.com', PASSWORD)).access_token;
  const as = { token };
  ids.providers = (await api.call('POST', '/api/v1/providers', { ...as, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 't' } } })).body.id;
  ids.servers = (await api.call('POST', '/api/v1/servers', { ...as, body: { name: 'web-1', provider_id: ids.providers, region: 'eu-1', size: 'small' } })).body.id;
  ids.databases = (await api.call('POST', '/api/v1/databases', { ...as, body: { name: 'db-1', type: 'postgresql', server_id: ids.servers, version: '16', storage_gb: 5 } })).body.id;
  ids.apps = (await api.call('POST', '/api/v1/apps', { ...as, body: { name: 'app-1', server_id: ids.servers, source: { image: 'nginx:1' } } })).body.id;
}, 60_000);

afterAll(async () => {
  await api.stop();
});

/** Bodies worth trying for a route: anything, and the route's own fields with any values. */
function bodies(schema: Record<string, unknown> | undefined): fc.Arbitrary<unknown> {
  const properties = Object.keys((schema?.properties as Record<string, unknown> | undefined) ?? {});
  const ownFields = properties.length > 0
    ? fc.dictionary(fc.constantFrom(...properties, 'unexpected'), fc.oneof(fc.jsonValue(), fc.string(), fc.integer(), fc.constant(null)), { maxKeys: properties.length + 1 })
    : fc.jsonValue();
  return fc.oneof(fc.jsonValue(), ownFields, ownFields);
}

const writes = documentedRoutes().filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method.toUpperCase()) && r.path.startsWith('/api/v1/'));

describe('fuzzed request bodies', () => {
  it.each(writes.map((r) => [r.method.toUpperCase(), r.path] as const))('%s %s never answers 5xx', async (method, template) => {
    const collection = /^\/api\/v1\/([a-z]+)\//.exec(template)?.[1] ?? '';
    const path = template.replace('{id}', ids[collection] ?? 'c0ffee00-0000-4000-8000-000000000000').replace('{backup_id}', 'c0ffee00-0000-4000-8000-000000000001');
    await fc.assert(
      fc.asyncProperty(bodies(requestBodySchema(method, template)), async (body) => {
        const answer = await api.call(method, path, { token, body });
        expect(answer.status, `${method} ${path} ${JSON.stringify(body)} → ${answer.text}`).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(answer.headers.get('content-type')).toContain('application/problem+json');
          expect(answer.body).toMatchObject({ status: answer.status, code: expect.any(String) });
        }
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
  });

  it('survives bodies that are not JSON at all', async () => {
    for (const text of ['{', '\u0000\u0001', 'null', '[]', '"x"', '1e999999', '{"a":'.repeat(2000)]) {
      const answer = await api.call('POST', '/api/v1/servers', { token, raw: { contentType: 'application/json', text } });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  });
});
