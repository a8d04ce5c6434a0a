/**
 * @module `POST /servers/{id}/reconcile` asks for a reconcile now, a stalled server included:
 * the vendor's refusal is looked at again at once (one more reconcile in the controller's
 * metrics), without waiting for the resync or the stall's backoff.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call -- answers are JSON checked by assertions and by the OpenAPI document, not by types */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../support/api-server.js';

const PASSWORD = 'a long enough password';
let api: ApiServer;
let token = '';

beforeAll(async () => {
  // A resync far away: only the request makes the reconciler look again.
  api = await startApiServer({ CAIRN_RESYNC_MS: '600000' });
  await api.addUser('owner@example.com', PASSWORD, 'owner');
  token = (await api.login('owner@example.com', PASSWORD)).access_token;
}, 60_000);
afterAll(async () => {
  await api.stop();
});

describe('reconcile now', () => {
  it('looks again at a stalled server at once and answers 202', async () => {
    // Through a manifest: the REST create checks the region against the catalogue, a manifest only at the vendor.
    const text = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: sandbox }\nspec: { vendor: sandbox }\n---\n' +
      'apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: web-1 }\nspec: { provider: sandbox, region: mars-1, size: small }\n';
    const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text } });
    const server = { id: applied.body.applied.find((r: any) => r.kind === 'Server').id as string };
    await api.until(`/api/v1/servers/${server.id}`, token, (s) => s.status === 'error');
    // Each reconcile of a server that ends in its stall counts as an error in the controller's metrics.
    const reconciles = async (): Promise<number> => {
      const text = await (await fetch(`${api.base}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('controller_runtime_reconcile_total{') && l.includes('controller="server"') && l.includes('result="error"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await reconciles();
    expect(before).toBeGreaterThan(0);

    const asked = await api.call('POST', `/api/v1/servers/${server.id}/reconcile`, { token, body: {} });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toMatchObject({ id: server.id, kind: 'Server', status: 'error' });
    const deadline = Date.now() + 10_000;
    while ((await reconciles()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await reconciles()).toBeGreaterThan(before);
  });
});
