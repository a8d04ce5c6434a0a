/**
 * @module Event webhooks end to end: the compiled `cairn serve` with the sandbox vendor and a
 * loopback receiver that checks each HMAC as a receiver would. A webhook subscribed to
 * resource.created, resource.ready and resource.deleted gets exactly those three, signed, when a
 * server is created and deleted; a receiver answering 500 first gets the event on the retry,
 * with the attempts in the delivery log; tenant B's events never reach tenant A's webhook; bad
 * input is a 422 naming the field and makes nothing; a viewer reads but cannot create.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, startApiServer, type ApiServer } from './support/api-server.js';
import { until } from './support/until.js';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const PASSWORD = 'correct horse battery staple';

let api: ApiServer;
let receiver: WebhookReceiver;
let receiverUrl: string;
let hooks: WebhookReceiver['received'];
let flakyFailuresLeft = 1;
const tokens: Record<string, string> = {};
/** Each owner's sandbox provider, by token. */
const providers: Record<string, string> = {};

beforeAll(async () => {
  receiver = await startWebhookReceiver((hook) => {
    if (hook.path !== '/flaky' || flakyFailuresLeft === 0) return 204;
    flakyFailuresLeft -= 1;
    return 500;
  });
  receiverUrl = receiver.url;
  hooks = receiver.received;
  api = await startApiServer({ CAIRN_ALLOW_PRIVATE_ENDPOINTS: '127.0.0.0/8' });
  for (const [email, role, tenant] of [['owner@a.test', 'owner', 'tenant-a'], ['viewer@a.test', 'viewer', 'tenant-a'], ['owner@b.test', 'owner', 'tenant-b']] as const) {
    await api.addUser(email, PASSWORD, role, tenant);
  }
  tokens.a = (await api.login('owner@a.test', PASSWORD)).access_token;
  tokens.viewer = (await api.login('viewer@a.test', PASSWORD)).access_token;
  tokens.b = (await api.login('owner@b.test', PASSWORD)).access_token;
  providers[tokens.a] = await readyProvider(tokens.a);
  providers[tokens.b] = await readyProvider(tokens.b);
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await receiver.close();
});

async function subscribe(token: string, path: string, events: string[]): Promise<{ id: string; secret: string }> {
  const created = await api.call('POST', '/api/v1/webhooks', { token, body: { url: `${receiverUrl}${path}`, events, description: `to ${path}` } });
  expect(created.status, created.text).toBe(201);
  expect(created.headers.get('location')).toMatch(new RegExp(`/webhooks/${created.body.id}$`));
  return { id: created.body.id, secret: created.body.secret };
}

/** A sandbox provider, made ready before any webhook exists (its own Ready event is not the server's). */
async function readyProvider(token: string): Promise<string> {
  const provider = await api.call('POST', '/api/v1/providers', { token, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 'any' } } });
  expect(provider.status, provider.text).toBe(201);
  await api.until(`/api/v1/providers/${provider.body.id}`, token, (p: any) => p.status === 'valid');
  return provider.body.id;
}

async function createAndDeleteServer(token: string, name: string): Promise<string> {
  const server = await api.call('POST', '/api/v1/servers', { token, body: { name, provider_id: providers[token], region: 'eu-1', size: 'small' } });
  expect(server.status, server.text).toBe(202);
  await api.until(`/api/v1/servers/${server.body.id}`, token, (s: any) => s.status === 'running');
  expect((await api.call('DELETE', `/api/v1/servers/${server.body.id}`, { token })).status).toBe(202);
  await until(`server ${name} gone`, async () => (await api.call('GET', `/api/v1/servers/${server.body.id}`, { token })).status, (status) => status === 404, 20_000);
  return server.body.id;
}

const serverEvents = (path: string, serverId: string) => hooks
  .filter((h) => h.path === path && JSON.parse(h.body).resource.id === serverId);

describe('event webhooks', () => {
  it('sends a subscribed webhook exactly created, ready and deleted of a server, signed, and tenant B\'s events never reach it', async () => {
    const a = await subscribe(tokens.a!, '/a', ['resource.created', 'resource.ready', 'resource.deleted']);
    const b = await subscribe(tokens.b!, '/b', ['resource.created']);
    const serverA = await createAndDeleteServer(tokens.a!, 'web-a');
    const serverB = await createAndDeleteServer(tokens.b!, 'web-b');
    const log = await until('the deliveries of both webhooks', async () => ({
      a: (await api.call('GET', `/api/v1/webhooks/${a.id}/deliveries`, { token: tokens.a })).body,
      b: (await api.call('GET', `/api/v1/webhooks/${b.id}/deliveries`, { token: tokens.b })).body,
    }), (l) => l.a.items.length >= 3 && l.a.items.every((d: any) => d.status === 'delivered') && l.b.items.some((d: any) => d.status === 'delivered'), 20_000);

    const toA = serverEvents('/a', serverA);
    expect(toA.map((h) => h.headers['x-cairn-event'])).toEqual(['resource.created', 'resource.ready', 'resource.deleted']);
    for (const hook of toA) {
      expect(signatureValid(hook, a.secret)).toBe(true);
      expect(signatureValid(hook, b.secret)).toBe(false);
      const body = JSON.parse(hook.body);
      expect(body).toMatchObject({ id: hook.headers['x-cairn-delivery'], event: hook.headers['x-cairn-event'], resource: { kind: 'Server', id: serverA, name: 'web-a' } });
      expect(Date.parse(body.occurred_at)).not.toBeNaN();
    }
    expect(hooks.filter((h) => h.path === '/a')).toHaveLength(3);
    expect(log.b.items.map((d: any) => [d.event, d.resource.id])).toEqual([['resource.created', serverB]]);
    expect(hooks.filter((h) => h.path === '/b').map((h) => [JSON.parse(h.body).resource.id, h.headers['x-cairn-event']])).toEqual([[serverB, 'resource.created']]);
    expect(signatureValid(hooks.find((h) => h.path === '/b')!, b.secret)).toBe(true);

    expect(log.a.items.map((d: any) => [d.event, d.status, d.attempts, d.resource.id])).toEqual([
      ['resource.deleted', 'delivered', 1, serverA], ['resource.ready', 'delivered', 1, serverA], ['resource.created', 'delivered', 1, serverA],
    ]);
    expect((await api.call('GET', `/api/v1/webhooks/${a.id}/deliveries`, { token: tokens.b })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/webhooks', { token: tokens.b })).body.items.map((w: any) => w.id)).toEqual([b.id]);
  }, 90_000);

  it('delivers on the retry after a receiver answers 500, with both attempts and the error recorded', async () => {
    const flaky = await subscribe(tokens.a!, '/flaky', ['resource.created']);
    const serverId = await createAndDeleteServer(tokens.a!, 'web-flaky');
    const log = await until('the flaky delivery', async () => (await api.call('GET', `/api/v1/webhooks/${flaky.id}/deliveries`, { token: tokens.a })).body,
      (body) => body.items[0]?.status === 'delivered', 20_000);
    expect(log.items).toHaveLength(1);
    expect(log.items[0]).toMatchObject({ event: 'resource.created', status: 'delivered', attempts: 2, last_error: null, resource: { id: serverId } });
    const sent = serverEvents('/flaky', serverId);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['x-cairn-delivery']).toBe(sent[1]!.headers['x-cairn-delivery']);
    expect(sent.every((h) => signatureValid(h, flaky.secret))).toBe(true);
    const metrics = await (await fetch(`${api.base}/metrics`)).text();
    expect(metrics).toMatch(/cairn_event_webhook_deliveries_total\{event="resource.created",outcome="retry"\} 1/);
  }, 60_000);

  it('answers bad input with a 422 naming the field and the valid events, and lets a viewer read but not create', async () => {
    const before = (await api.call('GET', '/api/v1/webhooks', { token: tokens.a })).body.items.length;
    const badEvent = await api.call('POST', '/api/v1/webhooks', { token: tokens.a, body: { url: `${receiverUrl}/x`, events: ['server.exploded'] } });
    expect(badEvent.status).toBe(422);
    expect(JSON.stringify(badEvent.body)).toContain('/events/0');
    expect(badEvent.body.detail ?? JSON.stringify(badEvent.body)).toMatch(/resource\.created.*backup\.failed/);
    const withCredentials = await api.call('POST', '/api/v1/webhooks', { token: tokens.a, body: { url: 'https://user:pw@hooks.example.com/x', events: ['resource.created'] } });
    expect(withCredentials.status).toBe(422);
    expect(JSON.stringify(withCredentials.body)).toMatch(/\/url.*without credentials/);
    const ftp = await api.call('POST', '/api/v1/webhooks', { token: tokens.a, body: { url: 'ftp://hooks.example.com/x', events: ['resource.created'] } });
    expect(ftp.status).toBe(422);
    const none = await api.call('POST', '/api/v1/webhooks', { token: tokens.a, body: { url: `${receiverUrl}/x`, events: [] } });
    expect(none.status).toBe(422);
    expect(JSON.stringify(none.body)).toContain('/events');
    expect((await api.call('POST', '/api/v1/webhooks', { token: tokens.viewer, body: { url: `${receiverUrl}/x`, events: ['resource.created'] } })).status).toBe(403);
    const listed = await api.call('GET', '/api/v1/webhooks', { token: tokens.viewer });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(before);
    expect(listed.body.items.every((w: any) => w.secret === undefined)).toBe(true);
  });

  it('shows the secret once: a replay through the Idempotency-Key answers the same webhook without it', async () => {
    const request = { token: tokens.a, headers: { 'Idempotency-Key': 'webhook-once' }, body: { url: `${receiverUrl}/once`, events: ['backup.failed'] } };
    const first = await api.call('POST', '/api/v1/webhooks', request);
    const replay = await api.call('POST', '/api/v1/webhooks', request);
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/.{16,}/);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual({ ...first.body, secret: undefined });
    expect(replay.body).not.toHaveProperty('secret');
  });

  it('deletes a webhook with its deliveries', async () => {
    const gone = await subscribe(tokens.a!, '/gone', ['resource.deleted']);
    expect((await api.call('GET', `/api/v1/webhooks/${gone.id}`, { token: tokens.a })).body).toMatchObject({ id: gone.id, events: ['resource.deleted'], description: 'to /gone' });
    expect((await api.call('DELETE', `/api/v1/webhooks/${gone.id}`, { token: tokens.a })).status).toBe(204);
    expect((await api.call('GET', `/api/v1/webhooks/${gone.id}`, { token: tokens.a })).status).toBe(404);
    expect((await api.call('GET', `/api/v1/webhooks/${gone.id}/deliveries`, { token: tokens.a })).status).toBe(404);
  });

  it('answers as the OpenAPI document says', () => {
    expect(contractProblems).toEqual([]);
  });
});
