/**
 * @module `/alert-rules` over real HTTP on a cairn without mail settings: an email channel is a
 * 422 on that channel naming CAIRN_SMTP_URL and CAIRN_MAIL_FROM, and nothing is stored; the
 * webhook secret is shown once, never by a read nor by an Idempotency-Key replay; a rule made
 * from a manifest becomes ready and shows its fields in REST's names. Every answer is checked
 * against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, startApiServer, type ApiServer } from '../support/api-server.js';

const PASSWORD = 'a long enough password';
let api: ApiServer;
let token: string;

beforeAll(async () => {
  api = await startApiServer();
  await api.addUser('owner@acme.test', PASSWORD, 'owner', 'acme');
  token = (await api.login('owner@acme.test', PASSWORD)).access_token;
}, 60_000);

afterAll(async () => {
  await api.stop();
});

describe('/alert-rules without mail settings', () => {
  const rule = { metric: 'disk_percent', threshold: 80, selector: { labels: { tier: 'db' } } };

  it('refuses an email channel with a 422 naming the settings, storing nothing', async () => {
    const answer = await api.call('POST', '/api/v1/alert-rules', { token, body: { ...rule, name: 'disk', channels: [{ type: 'webhook', url: 'https://hooks.example.com/a' }, { type: 'email', to: 'ops@example.com' }] } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([{ pointer: '/channels/1', message: expect.stringMatching(/CAIRN_SMTP_URL and CAIRN_MAIL_FROM/) }]);
    expect((await api.call('GET', '/api/v1/alert-rules', { token })).body.items).toEqual([]);
  });

  it('shows the webhook secret once: not on reads, not on an Idempotency-Key replay', async () => {
    const body = { ...rule, name: 'disk-hook', for_seconds: 300, channels: [{ type: 'webhook', url: 'https://hooks.example.com/b', format: 'discord' }] };
    const headers = { 'Idempotency-Key': 'alert-rule-1' };
    const created = await api.call('POST', '/api/v1/alert-rules', { token, body, headers });
    expect(created.status).toBe(201);
    expect(created.body.webhook_secret).toEqual(expect.any(String));
    expect(created.body).toMatchObject({ name: 'disk-hook', metric: 'disk_percent', threshold: 80, for_seconds: 300, source: 'api' });
    const replay = await api.call('POST', '/api/v1/alert-rules', { token, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(created.body.id);
    expect(replay.body).not.toHaveProperty('webhook_secret');
    const read = await api.until(`/api/v1/alert-rules/${created.body.id}`, token, (r: { status: string }) => r.status === 'ready');
    expect(read).not.toHaveProperty('webhook_secret');
    expect(JSON.stringify((await api.call('GET', '/api/v1/alert-rules', { token })).body)).not.toContain(created.body.webhook_secret);
  });

  it('turns a manifest rule into a ready record, for_seconds defaulting to 60', async () => {
    const manifest = 'apiVersion: cairn.dev/v1\nkind: AlertRule\nmetadata:\n  name: mem\nspec:\n  metric: memory_percent\n  threshold: 75\n  selector:\n    servers: [db-1]\n';
    const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: manifest } });
    expect(applied.status, applied.text).toBeLessThan(300);
    const listed = await api.until('/api/v1/alert-rules', token, (b: { items: Array<{ name: string; status: string }> }) => b.items.some((r) => r.name === 'mem' && r.status === 'ready'));
    expect(listed.items.find((r) => r.name === 'mem')).toMatchObject({ for_seconds: 60, channels: [], selector: { labels: {}, server_ids: [] } });
    expect(contractProblems).toEqual([]);
  });
});
