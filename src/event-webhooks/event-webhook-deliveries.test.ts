/**
 * @module Tests of the event webhook dispatcher and outbox against a real store and a loopback
 * receiver: each event becomes one delivery per subscribed webhook of its tenant made before it;
 * a dispatch that dies half way writes nothing and moves no cursor, and events recorded before a
 * crash are dispatched after the reopen, once, never again; a delivery is signed over its raw
 * body, names its event and delivery, and is retried after a failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import type { NewEvent } from '../store/events.js';
import { Store } from '../store/store.js';
import { mapEvent } from './event-mapping.js';
import { EventWebhookDeliveries } from './event-webhook-deliveries.js';

let receiver: WebhookReceiver;
let base: string;
let received: WebhookReceiver['received'];
let failuresLeft = 0;
const savedPolicy = process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;

beforeAll(async () => {
  process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = '127.0.0.0/8';
  receiver = await startWebhookReceiver(() => (failuresLeft-- > 0 ? 500 : 204));
  base = receiver.url;
  received = receiver.received;
});

afterAll(async () => {
  if (savedPolicy === undefined) delete process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
  else process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = savedPolicy;
  await receiver.close();
});

describe('event webhooks', () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-event-webhooks-'));
    store = Store.open(dir);
    received.length = 0;
    failuresLeft = 0;
  });

  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const record = (reason: string, tenant = 't', name = 'web'): void => {
    const event: NewEvent = { tenant, uid: `uid-${name}`, kind: 'Server', namespace: 'default', name, type: 'Normal', reason, message: `${reason} ${name}` };
    store.events.append(event);
  };
  const subscribe = (events: string[], tenant = 't', path = '/hook') => {
    const webhook = store.eventWebhooks.create(tenant, { url: `${base}${path}`, events, description: null });
    store.secrets.put(tenant, 'event-webhook', webhook.id, `secret-of-${webhook.id}`);
    return webhook;
  };
  const deliveries = (webhookId: string) => store.eventWebhooks.deliveries(webhookId, { limit: 100 }).items.reverse();

  it('writes one delivery per subscribed webhook of the event\'s tenant made before the event, and none twice', () => {
    record('Created', 't', 'before');
    const created = subscribe(['resource.created', 'resource.deleted']);
    const ready = subscribe(['resource.ready']);
    const other = subscribe(['resource.created'], 'other-tenant');
    record('Created', 't', 'a');
    record('Updated', 't', 'a');
    record('Ready', 't', 'a');
    record('Deleted', 't', 'a');
    const dispatcher = new EventWebhookDeliveries(store);
    expect(dispatcher.dispatch()).toBe(3);
    expect(dispatcher.dispatch()).toBe(0);
    expect(deliveries(created.id).map((d) => [d.event, d.resource.name, d.status])).toEqual([
      ['resource.created', 'a', 'pending'], ['resource.deleted', 'a', 'pending'],
    ]);
    expect(deliveries(ready.id).map((d) => d.event)).toEqual(['resource.ready']);
    expect(deliveries(other.id)).toEqual([]);
  });

  it('loses and repeats nothing across a crash: a dispatch that dies half way writes nothing, and what was recorded before a restart is dispatched once after it', () => {
    const webhook = subscribe(['resource.created']);
    record('Created', 't', 'a');
    record('Created', 't', 'b');
    const cursor = store.eventWebhooks.cursor();
    let mapped = 0;
    expect(() => store.eventWebhooks.dispatch(store.events, (event) => {
      if (++mapped === 2) throw new Error('the process dies here');
      return mapEvent(event);
    })).toThrow('the process dies here');
    expect(deliveries(webhook.id)).toEqual([]);
    expect(store.eventWebhooks.cursor()).toBe(cursor);

    store.close(); // a restart: nothing was dispatched
    store = Store.open(dir);
    expect(new EventWebhookDeliveries(store).dispatch()).toBe(2);
    record('Created', 't', 'c');
    store.close(); // a restart after dispatching a and b, with c recorded but not dispatched
    store = Store.open(dir);
    const dispatcher = new EventWebhookDeliveries(store);
    expect(dispatcher.dispatch()).toBe(1);
    expect(dispatcher.dispatch()).toBe(0);
    expect(deliveries(webhook.id).map((d) => d.resource.name)).toEqual(['a', 'b', 'c']);
  });

  it('sends the stored body signed with the webhook\'s secret, with its event and delivery id, and retries after a 500', async () => {
    const webhook = subscribe(['resource.created']);
    record('Created', 't', 'a');
    let clock = 0;
    const dispatcher = new EventWebhookDeliveries(store, {}, () => new Date(clock));
    dispatcher.dispatch();
    clock = Date.now(); // the delivery is due from when it was written
    failuresLeft = 1;
    expect(await dispatcher.deliverDue()).toBe(1);
    const [failed] = deliveries(webhook.id);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringMatching(/answered HTTP 500/) });
    expect(await dispatcher.deliverDue()).toBe(0); // not due before its backoff
    clock += 1_000;
    expect(await dispatcher.deliverDue()).toBe(1);
    expect(deliveries(webhook.id)[0]).toMatchObject({ status: 'delivered', attempts: 2, lastError: null });
    expect(received).toHaveLength(2);
    for (const request of received) {
      expect(request.headers['x-cairn-event']).toBe('resource.created');
      expect(request.headers['x-cairn-delivery']).toBe(failed!.id);
      expect(signatureValid(request, `secret-of-${webhook.id}`)).toBe(true);
      expect(signatureValid(request, 'another secret')).toBe(false);
      expect(JSON.parse(request.body)).toMatchObject({ id: failed!.id, event: 'resource.created', resource: { kind: 'Server', id: 'uid-a', name: 'a', namespace: 'default' } });
    }
    expect(received[0]!.body).toBe(received[1]!.body);
  });
});
