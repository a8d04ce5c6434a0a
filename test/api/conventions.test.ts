/**
 * @module API.md's conventions over real HTTP: problem+json errors with pointers, cursor
 * pagination, ETag/If-Match, Idempotency-Key replays, the 1 MiB limit, media types, the `/v1`
 * alias, request ids, and changes to resources another source owns.
 */
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { Store } from '../../src/store/store.js';

const PASSWORD = 'conventions password';
let api: ApiServer;
let token = '';
let providerId = '';

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('dev@example.com', PASSWORD, 'member');
  token = (await api.login('dev@example.com', PASSWORD)).access_token;
  providerId = (await api.call('POST', '/api/v1/providers', { token, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 'sandbox-token' } } })).body.id;
}, 60_000);

afterAll(async () => {
  await api.stop();
});

const server = (name: string): Record<string, unknown> => ({ name, provider_id: providerId, region: 'eu-1', size: 'small' });

describe('errors', () => {
  it('names unknown fields and bad values with JSON pointers (422)', async () => {
    const answer = await api.call('POST', '/api/v1/servers', { token, body: { ...server('Bad_Name'), colour: 'red' } });
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body).toMatchObject({ status: 422, code: 'validation_failed', type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
    const pointers = answer.body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/colour', '/name']));
  });

  it('answers malformed JSON with 400, other media types with 415, big bodies with 413', async () => {
    const malformed = await api.call('POST', '/api/v1/servers', { token, raw: { contentType: 'application/json', text: '{"name": ' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('malformed_request');
    const text = await api.call('POST', '/api/v1/servers', { token, raw: { contentType: 'text/plain', text: 'name=x' } });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('unsupported_media_type');
    const big = await api.call('POST', '/api/v1/servers', { token, body: { ...server('big'), labels: { a: 'x'.repeat(1_100_000) } } });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
  });

  it('answers unknown paths with a 404 problem and carries the request id', async () => {
    const answer = await api.call('GET', '/api/v1/nothing-here', { token, headers: { 'X-Request-Id': 'trace-123' } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('x-request-id')).toBe('trace-123');
    expect(answer.body.code).toBe('not_found');
  });
});

describe('lists', () => {
  it('pages with limit and cursor, and refuses an out-of-range limit', async () => {
    for (const name of ['p-1', 'p-2', 'p-3']) expect((await api.call('POST', '/api/v1/servers', { token, body: server(name) })).status).toBe(202);
    const first = await api.call('GET', '/api/v1/servers?limit=2', { token });
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await api.call('GET', `/api/v1/servers?limit=2&cursor=${first.body.next_cursor}`, { token });
    const names = [...first.body.items, ...second.body.items].map((s: { name: string }) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['p-1', 'p-2', 'p-3']));
    for (const limit of ['0', '201', 'ten']) expect((await api.call('GET', `/api/v1/servers?limit=${limit}`, { token })).status).toBe(422);
  });
});

describe('versions and retries', () => {
  it('refuses a stale If-Match with 412 and takes a current one', async () => {
    const created = await api.call('POST', '/api/v1/servers', { token, body: server('etag-1') });
    const etag = created.headers.get('etag') ?? '';
    const changed = await api.call('PUT', `/api/v1/servers/${created.body.id}`, { token, body: { size: 'medium' }, headers: { 'If-Match': etag } });
    expect(changed.status).toBe(202);
    expect(changed.body.size).toBe('medium');
    const stale = await api.call('PUT', `/api/v1/servers/${created.body.id}`, { token, body: { size: 'large' }, headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    const staleDelete = await api.call('DELETE', `/api/v1/servers/${created.body.id}`, { token, headers: { 'If-Match': etag } });
    expect(staleDelete.status).toBe(412);
  });

  it('refuses an entity tag cairn never issued with 412, and a header that is no entity-tag list with 400', async () => {
    const created = await api.call('POST', '/api/v1/servers', { token, body: server('etag-2') });
    const foreign = await api.call('PUT', `/api/v1/servers/${created.body.id}`, { token, body: { size: 'medium' }, headers: { 'If-Match': '"not-a-version"' } });
    expect(foreign.status).toBe(412);
    expect(foreign.body.code).toBe('precondition_failed');
    const listed = await api.call('PUT', `/api/v1/servers/${created.body.id}`, { token, body: { size: 'medium' }, headers: { 'If-Match': `"x", ${created.headers.get('etag') ?? ''}` } });
    expect(listed.status).toBe(202);
    const garbage = await api.call('DELETE', `/api/v1/servers/${created.body.id}`, { token, headers: { 'If-Match': 'no quotes' } });
    expect(garbage.status).toBe(400);
    expect(garbage.body.code).toBe('malformed_request');
  });

  it('says when a PUT replaces the server', async () => {
    const created = await api.call('POST', '/api/v1/servers', { token, body: server('replace-1') });
    const changed = await api.call('PUT', `/api/v1/servers/${created.body.id}`, { token, body: { image: 'ubuntu-24.04' } });
    expect(changed.status).toBe(202);
    const ready = changed.body.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'Replacing' });
    expect(ready.message).toContain('image');
  });

  it('replays a POST with the same Idempotency-Key instead of running it twice', async () => {
    const headers = { 'Idempotency-Key': 'create-idem-1' };
    const first = await api.call('POST', '/api/v1/servers', { token, body: server('idem-1'), headers });
    const second = await api.call('POST', '/api/v1/servers', { token, body: server('idem-1'), headers });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const other = await api.call('POST', '/api/v1/servers', { token, body: server('idem-2'), headers });
    expect(other.status).toBe(422);
    const without = await api.call('POST', '/api/v1/servers', { token, body: server('idem-1') });
    expect(without.status).toBe(409);
  });

  it('serves every route under the /v1 alias too', async () => {
    const answer = await api.call('GET', '/v1/servers?limit=1', { token });
    expect(answer.status).toBe(200);
    expect(answer.body.items).toHaveLength(1);
  });
});

describe('ownership', () => {
  it('applies YAML manifests as the API\'s own, and refuses changes to another source\'s resource (409 naming it)', async () => {
    const yaml = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: from-yaml\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n';
    const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: yaml } });
    expect(applied.status).toBe(200);
    expect(applied.body.applied[0]).toMatchObject({ kind: 'Server', name: 'from-yaml', action: 'created' });
    // A server a git source owns, written to the same data dir as a git source would write it.
    const store = Store.open(api.dataDir);
    try {
      const tenant = store.resources.get(applied.body.applied[0].id)?.tenant ?? '';
      const manifest = { apiVersion: 'cairn.dev/v1' as const, kind: 'Server' as const, metadata: { name: 'from-git' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } };
      const { results } = store.resources.apply(tenant, 'git:shop-infra', [manifest]);
      const id = results[0]?.uid ?? '';
      const changed = await api.call('PUT', `/api/v1/servers/${id}`, { token, body: { size: 'large' } });
      expect(changed.status).toBe(409);
      expect(changed.body.detail).toContain('git:shop-infra');
      expect((await api.call('GET', `/api/v1/servers/${id}`, { token })).body.source).toBe('git');
      expect((await api.call('DELETE', `/api/v1/servers/${id}`, { token })).status).toBe(409);
    } finally {
      store.close();
    }
  });

  it('plans manifests with dry_run and changes nothing', async () => {
    const yaml = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: planned-1\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n';
    const planned = await api.call('POST', '/api/v1/manifests?dry_run=true', { token, raw: { contentType: 'application/yaml', text: yaml } });
    expect(planned.status).toBe(200);
    expect(planned.body.summary).toMatchObject({ create: 1 });
    expect(planned.body.changes[0]).toMatchObject({ action: 'create', kind: 'Server', name: 'planned-1' });
    const listed = await api.call('GET', '/api/v1/servers?limit=200', { token });
    expect(listed.body.items.map((s: { name: string }) => s.name)).not.toContain('planned-1');
  });

  it('refuses invalid manifests with the document index and field, applying none', async () => {
    const yaml = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: ok-1\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n---\napiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: bad-1\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n  cores: 4\n';
    const answer = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: yaml } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([expect.objectContaining({ pointer: '/1/spec/cores' })]);
    const listed = await api.call('GET', '/api/v1/servers?limit=200', { token });
    expect(listed.body.items.map((s: { name: string }) => s.name)).not.toContain('ok-1');
  });
});
