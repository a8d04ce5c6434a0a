/**
 * @module Providers of vendors whose credential fields are all optional (local, sandbox) are
 * created through the REST API with `credentials: {}` or no credentials at all, while a field
 * the vendor does not take, or a missing required one, is still a 422 that names it.
 */
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, startApiServer, type ApiServer } from '../support/api-server.js';

const PASSWORD = 'optional credentials password';
let api: ApiServer;
let token = '';

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  token = (await api.login('owner@example.com', PASSWORD)).access_token;
}, 60_000);

afterAll(async () => {
  await api.stop();
});

describe('providers without credentials', () => {
  it('creates a local provider with an empty credential bundle', async () => {
    const created = await api.call('POST', '/api/v1/providers', { token, body: { name: 'here', vendor: 'local', credentials: {} } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'here', vendor: 'local', credentials_hint: null });
  });

  it('creates a sandbox provider with no credentials field at all', async () => {
    const created = await api.call('POST', '/api/v1/providers', { token, body: { name: 'play', vendor: 'sandbox' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'play', vendor: 'sandbox', credentials_hint: null });
  });

  it('still names a credential the vendor does not take, and creates nothing', async () => {
    const refused = await api.call('POST', '/api/v1/providers', { token, body: { name: 'there', vendor: 'local', credentials: { token: 'x' } } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/credentials/token', message: expect.stringContaining('takes no credential') })]);
    const list = await api.call('GET', '/api/v1/providers', { token });
    expect(list.body.items.map((p: { name: string }) => p.name)).not.toContain('there');
  });

  it('answers every call as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
