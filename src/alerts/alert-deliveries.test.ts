/**
 * @module Tests of the notification outbox against a real store and a loopback receiver: a firing
 * writes one pending delivery per channel with the alert, and only one alert fires per (rule,
 * server); a delivery a crash left pending is sent once after a reopen, under its id; a receiver
 * that keeps failing gets MAX_ATTEMPTS attempts, spaced by the backoff, then the delivery fails
 * with the last error kept; a webhook URL the outbound guard refuses fails with its reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NewAlert } from '../store/alerts.js';
import { Store } from '../store/store.js';
import { AlertDeliveries } from './alert-deliveries.js';
import { MAX_ATTEMPTS } from '../outbox/delivery-backoff.js';

let receiver: Server;
let base: string;
const received: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
const savedPolicy = process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;

beforeAll(async () => {
  process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = '127.0.0.0/8';
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers });
      res.writeHead(req.url === '/down' ? 503 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (savedPolicy === undefined) delete process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS;
  else process.env.CAIRN_ALLOW_PRIVATE_ENDPOINTS = savedPolicy;
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('the alert outbox', () => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-alert-outbox-'));
    store = Store.open(dir);
    received.length = 0;
  });

  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const alertFor = (channels: object[], server = 's1'): NewAlert => ({
    tenant: 't', namespace: 'default', ruleUid: 'r1', ruleName: 'high-cpu', serverUid: server, serverName: 'web', metric: 'cpu_percent',
    threshold: 90, forSeconds: 0, value: 95, at: new Date().toISOString(), channels,
  });

  it('writes one pending delivery per channel with the alert, and fires one alert per (rule, server) at a time', () => {
    const alert = store.transaction(() => store.alerts.fire(alertFor([{ type: 'webhook', url: `${base}/a`, format: 'slack' }, { type: 'email', to: 'ops@example.com' }])));
    expect(store.alerts.deliveriesOf(alert.id).map((d) => [d.channelIndex, d.event, d.status, d.attempts])).toEqual([[0, 'firing', 'pending', 0], [1, 'firing', 'pending', 0]]);
    expect(() => store.transaction(() => store.alerts.fire(alertFor([])))).toThrow(/UNIQUE/);
    expect(store.transaction(() => store.alerts.fire(alertFor([], 's2'))).state).toBe('firing');
  });

  it('sends a delivery a crash left pending once, after the reopen, under its delivery id', async () => {
    const alert = store.transaction(() => store.alerts.fire(alertFor([{ type: 'webhook', url: `${base}/hook`, format: 'discord' }])));
    const [pending] = store.alerts.deliveriesOf(alert.id);
    store.close(); // the process ends before its delivery loop ran
    store = Store.open(dir);
    const deliveries = new AlertDeliveries(store, undefined);
    expect(await deliveries.deliverDue()).toBe(1);
    expect(await deliveries.deliverDue()).toBe(0);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['x-cairn-delivery']).toBe(pending!.id);
    expect(store.alerts.deliveriesOf(alert.id)[0]).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
  });

  it(`tries a failing receiver ${MAX_ATTEMPTS} times, spaced by the backoff, then fails the delivery keeping the last error`, async () => {
    let clock = Date.now();
    const deliveries = new AlertDeliveries(store, undefined, {}, () => new Date(clock));
    const alert = store.transaction(() => store.alerts.fire({ ...alertFor([{ type: 'webhook', url: `${base}/down`, format: 'json' }]), at: new Date(clock).toISOString() }));
    const waits: number[] = [];
    for (let round = 0; round < 20 && store.alerts.deliveriesOf(alert.id)[0]!.status === 'pending'; round++) {
      await deliveries.deliverDue();
      const [d] = store.alerts.deliveriesOf(alert.id);
      if (d!.status === 'pending') {
        expect(await deliveries.deliverDue()).toBe(0); // not due before its backoff
        waits.push(Date.parse(d!.nextAttemptAt) - clock);
        clock = Date.parse(d!.nextAttemptAt);
      }
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    expect(received.filter((r) => r.path === '/down')).toHaveLength(MAX_ATTEMPTS);
    expect(store.alerts.deliveriesOf(alert.id)[0]).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastError: expect.stringMatching(/answered HTTP 503/) });
  });

  it('fails a webhook the outbound guard refuses, saying so, and an email channel without mail settings', async () => {
    const alert = store.transaction(() => store.alerts.fire(alertFor([{ type: 'webhook', url: 'http://169.254.169.254/latest', format: 'json' }, { type: 'email', to: 'ops@example.com' }])));
    await new AlertDeliveries(store, undefined).deliverDue();
    const [webhook, email] = store.alerts.deliveriesOf(alert.id);
    expect(webhook).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringMatching(/refused by cairn's outbound guard/) });
    expect(email).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringMatching(/CAIRN_SMTP_URL and CAIRN_MAIL_FROM/) });
  });
});
