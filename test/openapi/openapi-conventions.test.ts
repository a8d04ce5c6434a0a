/**
 * @module The OpenAPI document keeps API.md's conventions on every operation (auth, problem
 * documents, request ids, ETags, If-Match, Idempotency-Key, pagination, closed request bodies),
 * documents exactly the routes of this issue, and agrees with the code's status values and kinds.
 */
import { describe, expect, it } from 'vitest';
import { KINDS, PHASES } from '../../src/model/kinds.js';
import {
  documentedOperations,
  loadOpenApi,
  validateResponse,
  type JsonSchema,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiResponse,
} from '../support/openapi-document.js';

const doc = loadOpenApi();
const components = doc.components ?? {};

/** The routes built so far (the seed's, migrations included, plus API.md's, git sources, billing, sign-in through identity providers, event webhooks and the dashboard's support). */
const EXPECTED_ROUTES = [
  'GET /api/v1/webhooks', 'POST /api/v1/webhooks', 'GET /api/v1/webhooks/{id}', 'DELETE /api/v1/webhooks/{id}', 'GET /api/v1/webhooks/{id}/deliveries',
  'POST /api/v1/auth/login', 'POST /api/v1/auth/refresh', 'POST /api/v1/auth/logout', 'GET /api/v1/auth/me', 'GET /.well-known/jwks.json',
  'POST /api/v1/tokens', 'GET /api/v1/tokens', 'DELETE /api/v1/tokens/{id}',
  'GET /api/v1/providers', 'POST /api/v1/providers', 'GET /api/v1/providers/vendors', 'GET /api/v1/providers/{id}', 'PUT /api/v1/providers/{id}',
  'DELETE /api/v1/providers/{id}', 'POST /api/v1/providers/{id}/test', 'GET /api/v1/providers/{id}/regions', 'GET /api/v1/providers/{id}/sizes',
  'POST /api/v1/providers/{id}/credentials/rotate',
  'GET /api/v1/ssh-keys', 'POST /api/v1/ssh-keys', 'GET /api/v1/ssh-keys/{id}', 'DELETE /api/v1/ssh-keys/{id}',
  'GET /api/v1/ssh-keys/runtime', 'POST /api/v1/ssh-keys/runtime/rotate',
  'GET /api/v1/servers', 'POST /api/v1/servers', 'GET /api/v1/servers/{id}', 'PUT /api/v1/servers/{id}', 'DELETE /api/v1/servers/{id}',
  'POST /api/v1/servers/{id}/start', 'POST /api/v1/servers/{id}/stop', 'POST /api/v1/servers/{id}/reboot', 'GET /api/v1/servers/{id}/metrics',
  'GET /api/v1/servers/{id}/terminal',
  'GET /api/v1/databases', 'POST /api/v1/databases', 'GET /api/v1/databases/{id}', 'PUT /api/v1/databases/{id}', 'DELETE /api/v1/databases/{id}',
  'GET /api/v1/databases/{id}/credentials', 'POST /api/v1/databases/{id}/credentials/rotate', 'GET /api/v1/databases/{id}/backups',
  'POST /api/v1/databases/{id}/backups', 'POST /api/v1/databases/{id}/backups/{backup_id}/restore',
  'GET /api/v1/apps', 'POST /api/v1/apps', 'GET /api/v1/apps/{id}', 'PUT /api/v1/apps/{id}', 'DELETE /api/v1/apps/{id}', 'POST /api/v1/apps/{id}/deploy',
  'POST /api/v1/apps/{id}/start', 'POST /api/v1/apps/{id}/stop', 'GET /api/v1/apps/{id}/logs', 'GET /api/v1/apps/{id}/deployments',
  'POST /api/v1/deploy', 'POST /api/v1/manifests', 'GET /api/v1/events',
  'GET /api/v1/sources', 'POST /api/v1/sources', 'GET /api/v1/sources/{id}', 'PATCH /api/v1/sources/{id}', 'DELETE /api/v1/sources/{id}',
  'POST /api/v1/sources/{id}/sync', 'POST /api/v1/sources/{id}/webhook', 'GET /api/v1/operations/{id}', 'GET /api/v1/openapi.json',
  'POST /api/v1/servers/{id}/reconcile', 'POST /api/v1/databases/{id}/reconcile', 'POST /api/v1/apps/{id}/reconcile',
  'GET /api/v1/billing/plans', 'GET /api/v1/billing/subscription', 'GET /api/v1/billing/usage', 'POST /api/v1/billing/checkout',
  'POST /api/v1/billing/portal', 'GET /api/v1/billing/invoices', 'POST /api/v1/billing/webhook',
  'GET /healthz', 'GET /readyz', 'GET /metrics',
  'GET /api/v1/auth/github', 'GET /api/v1/auth/google', 'GET /api/v1/auth/gitlab',
  'GET /api/v1/auth/github/callback', 'GET /api/v1/auth/google/callback', 'GET /api/v1/auth/gitlab/callback',
  'POST /api/v1/auth/exchange', 'GET /api/v1/auth/identities', 'DELETE /api/v1/auth/identities/{id}',
  'GET /api/v1/alert-rules', 'POST /api/v1/alert-rules', 'GET /api/v1/alert-rules/{id}', 'PUT /api/v1/alert-rules/{id}', 'DELETE /api/v1/alert-rules/{id}',
  'GET /api/v1/alerts', 'GET /api/v1/alerts/{id}',
  'GET /api/v1/migrations/platform-a/projects', 'POST /api/v1/migrations/platform-a/migrate', 'GET /api/v1/migrations/platform-b/apps',
  'POST /api/v1/migrations/platform-b/analyze', 'POST /api/v1/migrations/platform-b/migrate', 'GET /api/v1/migrations', 'GET /api/v1/migrations/{id}',
  'POST /api/v1/migrations/{id}/retry',
  'POST /api/v1/apps/{id}/webhook', 'POST /api/v1/apps/{id}/webhook-secret/rotate', 'GET /api/v1/apps/{id}/deployments/{deployment}/log',
  'GET /api/v1/watch', 'GET /api/v1/me/preferences', 'PUT /api/v1/me/preferences', 'GET /api/v1/auth/providers',
];

/** API.md: every route needs a bearer token but these. */
const PUBLIC_ROUTES = new Set([
  'POST /api/v1/auth/login', 'POST /api/v1/auth/refresh', 'GET /.well-known/jwks.json', 'GET /api/v1/openapi.json', 'GET /healthz', 'GET /readyz', 'GET /metrics',
  'POST /api/v1/sources/{id}/webhook', 'POST /api/v1/billing/webhook', 'POST /api/v1/apps/{id}/webhook',
  'GET /api/v1/auth/github', 'GET /api/v1/auth/google', 'GET /api/v1/auth/gitlab',
  'GET /api/v1/auth/github/callback', 'GET /api/v1/auth/google/callback', 'GET /api/v1/auth/gitlab/callback',
  'POST /api/v1/auth/exchange', 'GET /api/v1/auth/providers',
]);

interface Located {
  route: string;
  pathKey: string;
  method: string;
  operation: OpenApiOperation;
  parameters: OpenApiParameter[];
}

function resolveParameter(p: OpenApiParameter): OpenApiParameter {
  return p.$ref ? components.parameters![p.$ref.split('/').pop()!]! : p;
}

function resolveResponse(r: OpenApiResponse): OpenApiResponse {
  return r.$ref ? resolveResponse(components.responses![r.$ref.split('/').pop()!]!) : r;
}

function resolveSchema(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? resolveSchema(components.schemas![ref.split('/').pop()!]!) : schema;
}

function schemaName(schema: JsonSchema | undefined): string | undefined {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? ref.split('/').pop() : undefined;
}

const operations: Located[] = documentedOperations().map(({ method, path, pathKey, operation, parameters }) => ({
  route: `${method} ${path}`,
  pathKey,
  method: method.toLowerCase(),
  operation,
  parameters: parameters.map(resolveParameter),
}));

const RECORDS = new Set(['Provider', 'SSHKey', 'Server', 'Database', 'App', 'AlertRule']);

describe('schemas/openapi.yaml', () => {
  it('documents exactly the routes built so far', () => {
    expect(operations.map((o) => o.route).sort()).toEqual([...EXPECTED_ROUTES].sort());
  });

  it('names, tags and summarises every operation, with unique operationIds', () => {
    for (const { route, operation } of operations) {
      expect(operation.operationId, route).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.tags?.length, route).toBe(1);
      expect(operation.summary, route).toBeTruthy();
    }
    const ids = operations.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('asks for a bearer token everywhere but the public routes, and answers 401 with WWW-Authenticate', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { route, operation } of operations) {
      if (PUBLIC_ROUTES.has(route)) {
        expect(operation.security, route).toEqual([]);
        continue;
      }
      expect(operation.security, route).toBeUndefined();
      const unauthorized = resolveResponse(operation.responses['401']!);
      expect(unauthorized.headers, route).toHaveProperty('WWW-Authenticate');
    }
  });

  it('sends X-Request-Id on every response, and every 4xx and 5xx but readiness as a Problem in application/problem+json', () => {
    for (const { route, operation } of operations) {
      for (const [status, declared] of Object.entries(operation.responses)) {
        const response = resolveResponse(declared);
        expect(response.headers, `${route} ${status}`).toHaveProperty('X-Request-Id');
        if (Number(status) < 400 || route === 'GET /readyz') continue;
        expect(Object.keys(response.content ?? {}), `${route} ${status}`).toEqual(['application/problem+json']);
        expect(schemaName(response.content!['application/problem+json']!.schema), `${route} ${status}`).toBe('Problem');
      }
      if (operation.responses['429']) expect(resolveResponse(operation.responses['429']).headers, route).toHaveProperty('Retry-After');
    }
  });

  it('lists exactly API.md\'s error codes in Problem', () => {
    expect(components.schemas!.ErrorCode!.enum).toEqual([
      'validation_failed', 'malformed_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'precondition_failed',
      'payload_too_large', 'unsupported_media_type', 'rate_limited', 'quota_exceeded', 'provider_error', 'internal',
    ]);
  });

  it('takes Idempotency-Key on every POST behind authentication', () => {
    for (const { route, method, parameters } of operations) {
      if (method !== 'post' || PUBLIC_ROUTES.has(route)) continue;
      expect(parameters.map((p) => p.name), route).toContain('Idempotency-Key');
    }
  });

  it('sends ETag with every provider, server, database and app record, and takes If-Match (412) on their PUT and DELETE', () => {
    for (const { route, method, operation, parameters } of operations) {
      for (const [status, declared] of Object.entries(operation.responses)) {
        const response = resolveResponse(declared);
        const name = schemaName(response.content?.['application/json']?.schema);
        if (name && RECORDS.has(name)) expect(response.headers, `${route} ${status}`).toHaveProperty('ETag');
      }
      if ((method === 'put' || method === 'delete') && !route.includes('/tokens/') && !route.includes('/sources/') && !route.includes('/webhooks/') && !route.includes('/auth/identities/') && !route.includes('/me/')) {
        expect(parameters.map((p) => p.name), route).toContain('If-Match');
        expect(operation.responses, route).toHaveProperty('412');
      }
    }
  });

  it('pages every list with limit (1–200, default 50) and cursor, answering {items, next_cursor}', () => {
    for (const { route, operation, parameters } of operations) {
      const schema = operation.responses['200'] && resolveResponse(operation.responses['200']).content?.['application/json']?.schema;
      const list = schema && resolveSchema(schema);
      const nextCursor = (list?.properties as Record<string, JsonSchema> | undefined)?.next_cursor;
      if (!nextCursor || schemaName(nextCursor) !== 'NextCursor') continue;
      const limit = parameters.find((p) => p.name === 'limit');
      expect(limit?.schema, route).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
      expect(parameters.map((p) => p.name), route).toContain('cursor');
      expect(list!.required, route).toEqual(['items', 'next_cursor']);
      expect(operation.responses, route).toHaveProperty('422');
    }
  });

  it('takes path ids as UUIDs', () => {
    for (const { route, parameters } of operations) {
      for (const p of parameters.filter((x) => x.in === 'path')) {
        expect(resolveSchema(p.schema!), `${route} ${p.name}`).toMatchObject({ type: 'string', format: 'uuid' });
      }
    }
  });

  it('closes every JSON request body to fields it does not name (422 for them), and answers 413 and 415 wherever a body is taken', () => {
    for (const { route, operation } of operations) {
      const content = operation.requestBody?.content;
      if (!content) continue;
      expect(operation.responses, route).toHaveProperty('413');
      expect(operation.responses, route).toHaveProperty('415');
      expect(operation.responses, route).toHaveProperty('422');
      const body = resolveSchema(content['application/json']!.schema!);
      const shapes = (body.oneOf as JsonSchema[] | undefined)?.map(resolveSchema) ?? [body];
      for (const shape of shapes) expect(shape.additionalProperties, route).toBe(false);
    }
  });

  it('agrees with the code on the status values of each kind (API.md\'s table) and on the kinds', () => {
    const schemas = components.schemas!;
    const statusOf = (name: string): unknown => resolveSchema((schemas[name]!.properties as Record<string, JsonSchema>).status!).enum;
    expect(statusOf('Provider')).toEqual(PHASES.Provider);
    expect(statusOf('SSHKey')).toEqual(PHASES.SSHKey);
    expect(statusOf('Server')).toEqual(PHASES.Server);
    expect(statusOf('Database')).toEqual(PHASES.Database);
    expect(statusOf('App')).toEqual(PHASES.App);
    expect(statusOf('AlertRule')).toEqual(PHASES.AlertRule);
    expect(schemas.Kind!.enum).toEqual(KINDS);
  });

  it('has a schema that compiles for every documented response', () => {
    for (const { route, operation } of operations) {
      const [method, path] = route.split(' ') as [string, string];
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      for (const [status, declared] of Object.entries(operation.responses)) {
        for (const contentType of Object.keys(resolveResponse(declared).content ?? {})) {
          expect(() => validateResponse({ method, path: concrete, status: Number(status), contentType, body: null }), `${route} ${status} ${contentType}`).not.toThrow();
        }
      }
    }
  });
});
