/**
 * @module Alerts end to end: the compiled `cairn serve` (rules evaluated every second) against a
 * separate `cairn sandbox-cloud` whose server figures the test holds, an `smtp-server` on
 * loopback as the mail server, and a loopback HTTP receiver for the webhooks that checks the
 * json signature as a receiver would. A server's CPU at 95 sends exactly one firing mail, one
 * signed json webhook and one Slack message; a SIGKILL and restart while firing sends nothing
 * again; back at 10 sends one resolved each. A receiver answering 500 twice gets the
 * notification on the third attempt, under the same delivery id. Bad rules are 422s naming the
 * field, and change nothing; a viewer cannot create one. Every answer is checked against the
 * OpenAPI document.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startSandboxCloudProcess, startServe, type SandboxCloudProcess, type ServeProcess } from './support/cairn-process.js';
import { validateResponse } from './support/openapi-document.js';
import { until } from './support/until.js';

const PASSWORD = 'correct horse battery staple';

interface Mail { raw: string; subject: string; deliveryId: string; to: string }
interface Hook { path: string; headers: IncomingHttpHeaders; body: string }

let root: string;
let cloud: SandboxCloudProcess;
let serve: ServeProcess | undefined;
let smtp: SMTPServer;
let smtpPort: number;
let receiver: Server;
let receiverUrl: string;
const mails: Mail[] = [];
const hooks: Hook[] = [];
let flakyFailuresLeft = 2;
let ownerToken: string;
let viewerToken: string;
let serverId: string;
let cloudServerId: string;
let jsonSecret: string;
let memoryRuleId: string;

/** A header of a raw message, its folded lines joined. */
function header(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: *(.*)$`, 'mi').exec(head)?.[1]?.trim() ?? '';
}

async function startSmtp(): Promise<void> {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        mails.push({ raw, subject: header(raw, 'Subject'), deliveryId: header(raw, 'X-Cairn-Delivery'), to: session.envelope.rcptTo.map((r) => r.address).join(',') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
}

async function startReceiver(): Promise<void> {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hooks.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/flaky' && flakyFailuresLeft > 0) {
        flakyFailuresLeft -= 1;
        res.writeHead(500).end('try later');
        return;
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

/** What a receiver does with a json webhook: recompute the HMAC of the raw body and compare in constant time. */
function signatureValid(hook: Hook, secret: string): boolean {
  const given = Buffer.from(String(hook.headers['x-cairn-signature-256'] ?? ''));
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(hook.body).digest('hex')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function startCairn(): Promise<ServeProcess> {
  return startServe(['--port', '0', '--data-dir', join(root, 'state')], {
    env: {
      CAIRN_ALERT_INTERVAL_SECONDS: '1',
      CAIRN_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      CAIRN_MAIL_FROM: 'cairn@example.test',
      CAIRN_ALLOW_PRIVATE_ENDPOINTS: '127.0.0.0/8',
    },
  });
}

/** A JSON answer, read as the test needs it. */
type Answer = { status: number; body: ReturnType<typeof JSON.parse> };

async function call(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const answer = await fetch(`${serve!.base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await answer.text();
  const parsed = text ? JSON.parse(text) : undefined;
  // Every answer is what schemas/openapi.yaml documents.
  expect(validateResponse({ method, path: `/api/v1${path.split('?')[0]!}`, status: answer.status, contentType: answer.headers.get('content-type') ?? '', body: parsed })).toEqual([]);
  return { status: answer.status, body: parsed };
}

async function login(email: string): Promise<string> {
  const answer = await fetch(`${serve!.base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function setCloudMetrics(figures: Record<string, number | null>): Promise<void> {
  const answer = await fetch(`${cloud.url}/v1/servers/${cloudServerId}/metrics`, { method: 'PUT', headers: { authorization: 'Bearer sandbox', 'content-type': 'application/json' }, body: JSON.stringify(figures) });
  expect(answer.status).toBe(200);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const hooksAt = (path: string): Hook[] => hooks.filter((h) => h.path === path);
const eventOf = (hook: Hook): string => (JSON.parse(hook.body) as { event?: string; text?: string }).event ?? String((JSON.parse(hook.body) as { text?: string }).text).slice(0, 10);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-alerts-'));
  await Promise.all([startSmtp(), startReceiver()]);
  cloud = await startSandboxCloudProcess(['--data-dir', join(root, 'cloud'), '--provision-ms', '100']);
  for (const [email, role] of [['owner@example.test', 'owner'], ['viewer@example.test', 'viewer']] as const) {
    const added = await runCairn(['users', 'add', '--email', email, '--role', role, '--data-dir', join(root, 'state')], { input: `${PASSWORD}\n` });
    expect(added.code, added.stderr).toBe(0);
  }
  serve = await startCairn();
  ownerToken = await login('owner@example.test');
  viewerToken = await login('viewer@example.test');
  const provider = await call('POST', '/providers', ownerToken, { name: 'sandbox', vendor: 'sandbox', endpoint: cloud.url });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const server = await call('POST', '/servers', ownerToken, { name: 'web', provider_id: provider.body.id, region: 'eu-1', size: 'small', labels: { tier: 'web' } });
  expect(server.status, JSON.stringify(server.body)).toBe(202);
  serverId = server.body.id;
  await until('the server to run', () => call('GET', `/servers/${serverId}`, ownerToken), (r) => r.body.status === 'running');
  const listed = (await (await fetch(`${cloud.url}/v1/servers`, { headers: { authorization: 'Bearer sandbox' } })).json()) as { servers: Array<{ id: string }> };
  expect(listed.servers).toHaveLength(1);
  cloudServerId = listed.servers[0]!.id;
}, 120_000);

afterAll(async () => {
  serve?.child.kill('SIGKILL');
  await cloud?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  rmSync(root, { recursive: true, force: true });
});

describe('alert rules over REST', () => {
  const base = { metric: 'cpu_percent', threshold: 90, for_seconds: 1, selector: { labels: { tier: 'web' } } };

  it('refuses bad rules with a 422 naming the field, storing nothing, and viewers with a 403', async () => {
    const cases: Array<[object, string]> = [
      [{ ...base, name: 'bad-metric', metric: 'load_average' }, '/metric'],
      [{ ...base, name: 'bad-threshold', threshold: 150 }, '/threshold'],
      [{ ...base, name: 'bad-creds', channels: [{ type: 'webhook', url: 'https://user:pass@hooks.example.com/x', format: 'json' }] }, '/channels/0/url'],
      [{ ...base, name: 'bad-scheme', channels: [{ type: 'webhook', url: 'file:///etc/passwd', format: 'json' }] }, '/channels/0/url'],
      [{ ...base, name: 'bad-server', selector: { server_ids: ['00000000-0000-4000-8000-000000000000'] } }, '/selector/server_ids/0'],
    ];
    for (const [body, pointer] of cases) {
      const answer = await call('POST', '/alert-rules', ownerToken, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect((answer.body.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toContain(pointer);
    }
    const credentials = await call('POST', '/alert-rules', ownerToken, cases[2]![0]);
    expect(JSON.stringify(credentials.body)).toMatch(/without credentials/);
    const viewer = await call('POST', '/alert-rules', viewerToken, { ...base, name: 'viewer-rule' });
    expect(viewer.status).toBe(403);
    expect((await call('GET', '/alert-rules', ownerToken)).body.items).toEqual([]);
  });

  it('fires once when the CPU stays above the threshold: one mail, one signed json webhook, one Slack message', async () => {
    const created = await call('POST', '/alert-rules', ownerToken, {
      ...base, name: 'high-cpu',
      channels: [
        { type: 'email', to: 'ops@example.test' },
        { type: 'webhook', url: `${receiverUrl}/json`, format: 'json' },
        { type: 'webhook', url: `${receiverUrl}/slack`, format: 'slack' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    jsonSecret = created.body.webhook_secret;
    expect(jsonSecret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(created.body.selector).toEqual({ labels: { tier: 'web' }, server_ids: [] });
    expect((await call('GET', `/alert-rules/${created.body.id}`, ownerToken)).body.webhook_secret).toBeUndefined();
    await until('the rule to be ready', () => call('GET', `/alert-rules/${created.body.id}`, ownerToken), (r) => r.body.status === 'ready');

    await setCloudMetrics({ cpu_percent: 95 });
    await until('the firing notifications', () => Promise.resolve({ mails: mails.length, json: hooksAt('/json').length, slack: hooksAt('/slack').length }), (n) => n.mails >= 1 && n.json >= 1 && n.slack >= 1, 30_000);
    await sleep(3_000); // three more evaluations above the threshold
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe('ops@example.test');
    expect(mails[0]!.subject).toMatch(/^\[FIRING\] high-cpu: web cpu_percent 95 > 90 since /);
    expect(mails[0]!.raw).toContain('Value when it fired: 95');
    const [json] = hooksAt('/json');
    expect(hooksAt('/json')).toHaveLength(1);
    expect(signatureValid(json!, jsonSecret)).toBe(true);
    expect(signatureValid(json!, 'a forged secret')).toBe(false);
    const payload = JSON.parse(json!.body);
    expect(payload).toMatchObject({ event: 'alert.firing', alert: { server_id: serverId, value: 95, state: 'firing', resolved_at: null }, rule: { name: 'high-cpu', threshold: 90 } });
    expect(json!.headers['x-cairn-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(hooksAt('/slack')).toHaveLength(1);
    expect(JSON.parse(hooksAt('/slack')[0]!.body).text).toMatch(/^\[FIRING\] high-cpu/);

    const alerts = (await call('GET', '/alerts', ownerToken)).body.items;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ rule_id: created.body.id, server_id: serverId, value: 95, state: 'firing', resolved_at: null });
    const detail = (await call('GET', `/alerts/${alerts[0].id}`, ownerToken)).body;
    expect((detail.deliveries as Array<{ event: string; status: string; attempts: number }>).map((d) => [d.event, d.status, d.attempts])).toEqual([['firing', 'delivered', 1], ['firing', 'delivered', 1], ['firing', 'delivered', 1]]);
    const metrics = await (await fetch(`${serve!.base}/metrics`)).text();
    expect(metrics).toMatch(/cairn_alerts_firing\{tenant="default",rule="default\/high-cpu"\} 1/);
    expect(metrics).toMatch(/cairn_alert_deliveries_total\{channel="email",outcome="delivered"\} 1/);
    const events = (await call('GET', `/events?resource_id=${created.body.id}`, ownerToken)).body.items;
    expect((events as Array<{ reason: string }>).map((e) => e.reason)).toContain('AlertFiring');
  }, 60_000);

  it('sends nothing again after cairn is killed and restarted while the alert fires', async () => {
    serve!.child.kill('SIGKILL');
    await new Promise((resolve) => serve!.child.once('exit', resolve));
    serve = await startCairn();
    ownerToken = await login('owner@example.test');
    await sleep(4_000); // several evaluations, still above the threshold
    expect(mails).toHaveLength(1);
    expect(hooksAt('/json')).toHaveLength(1);
    expect(hooksAt('/slack')).toHaveLength(1);
    const alerts = (await call('GET', '/alerts', ownerToken)).body.items;
    expect((alerts as Array<{ state: string }>).map((a) => a.state)).toEqual(['firing']);
  }, 60_000);

  it('resolves once when the CPU drops back: one resolved mail, json webhook and Slack message', async () => {
    await setCloudMetrics({ cpu_percent: 10 });
    await until('the resolved notifications', () => Promise.resolve({ mails: mails.length, json: hooksAt('/json').length, slack: hooksAt('/slack').length }), (n) => n.mails >= 2 && n.json >= 2 && n.slack >= 2, 30_000);
    await sleep(3_000);
    expect(mails.map((m) => m.subject.slice(0, 10))).toEqual(['[FIRING] h', '[RESOLVED]']);
    expect(hooksAt('/json').map(eventOf)).toEqual(['alert.firing', 'alert.resolved']);
    expect(hooksAt('/slack')).toHaveLength(2);
    const resolved = hooksAt('/json')[1]!;
    expect(signatureValid(resolved, jsonSecret)).toBe(true);
    expect(JSON.parse(resolved.body).alert).toMatchObject({ state: 'resolved', resolved_value: 10 });
    const alerts = (await call('GET', '/alerts', ownerToken)).body.items;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ state: 'resolved', resolved_at: expect.any(String) });
    expect((await (await fetch(`${serve!.base}/metrics`)).text())).not.toMatch(/cairn_alerts_firing\{[^}]*high-cpu[^}]*\} 1/);
  }, 60_000);

  it('retries a receiver that answers 500 twice, delivering on the third attempt under the same delivery id', async () => {
    const created = await call('POST', '/alert-rules', ownerToken, {
      name: 'memory', metric: 'memory_percent', threshold: 50, for_seconds: 0, selector: { server_ids: [serverId] },
      channels: [{ type: 'webhook', url: `${receiverUrl}/flaky`, format: 'json' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.selector.server_ids).toEqual([serverId]);
    await setCloudMetrics({ memory_percent: 80 });
    const alert = await until('the memory alert delivered', async () => {
      const items = (await call('GET', '/alerts', ownerToken)).body.items as Array<{ id: string; rule_id: string }>;
      const mine = items.find((a) => a.rule_id === created.body.id);
      return mine ? ((await call('GET', `/alerts/${mine.id}`, ownerToken)).body as { deliveries: Array<{ status: string }> }) : undefined;
    }, (a) => a?.deliveries[0]?.status === 'delivered', 30_000);
    expect(alert!.deliveries).toEqual([expect.objectContaining({ event: 'firing', status: 'delivered', attempts: 3, channel: { type: 'webhook', url: `${receiverUrl}/flaky`, format: 'json' } })]);
    const attempts = hooksAt('/flaky');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((h) => h.headers['x-cairn-delivery'])).size).toBe(1);
    for (const attempt of attempts) expect(signatureValid(attempt, created.body.webhook_secret)).toBe(true);
    memoryRuleId = created.body.id;
  }, 60_000);

  it('changes a rule with PUT, and deleting it resolves its firing alert without notifying', async () => {
    const changed = await call('PUT', `/alert-rules/${memoryRuleId}`, ownerToken, { threshold: 60, selector: { labels: { tier: 'web' } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ threshold: 60, selector: { labels: { tier: 'web' }, server_ids: [] }, metric: 'memory_percent' });
    expect((await call('PUT', `/alert-rules/${memoryRuleId}`, ownerToken, { threshold: -1 })).status).toBe(422);
    expect((await call('PUT', `/alert-rules/${memoryRuleId}`, viewerToken, { threshold: 70 })).status).toBe(403);
    const before = hooksAt('/flaky').length;
    expect((await call('DELETE', `/alert-rules/${memoryRuleId}`, ownerToken)).status).toBe(202);
    await until('the rule to be gone', () => call('GET', `/alert-rules/${memoryRuleId}`, ownerToken), (r) => r.status === 404);
    const alerts = (await call('GET', '/alerts', ownerToken)).body.items as Array<{ rule_id: string; state: string }>;
    expect(alerts.filter((a) => a.rule_id === memoryRuleId).map((a) => a.state)).toEqual(['resolved']);
    await sleep(2_000);
    expect(hooksAt('/flaky')).toHaveLength(before);
  }, 60_000);
});
