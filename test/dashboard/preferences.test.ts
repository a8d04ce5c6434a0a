/**
 * @module `/me/preferences` over real HTTP: each user's own settings, replaced whole, kept per
 * user across sign-ins; viewers may set theirs; more than 16 KB is a 413 and anything but an
 * object a 422, and neither changes what was saved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApi, type InProcessApi } from './in-process-api.js';

let api: InProcessApi;

beforeAll(async () => {
  api = await startInProcessApi({ pollMs: 50, heartbeatMs: 1_000 });
});

afterAll(async () => {
  await api.stop();
});

const WIDGETS = { widgets: [{ id: 'events', shown: false }, { id: 'status', shown: true }] };

describe('/me/preferences', () => {
  it('starts empty and keeps what each user saved, apart from every other user', async () => {
    const owner = await api.signIn('owner@acme.test', 'owner', 'acme');
    const viewer = await api.signIn('viewer@acme.test', 'viewer', 'acme');
    expect(await api.call('GET', '/api/v1/me/preferences', owner.token)).toEqual({ status: 200, body: {} });
    expect(await api.call('PUT', '/api/v1/me/preferences', viewer.token, WIDGETS)).toEqual({ status: 200, body: WIDGETS });
    expect((await api.call('GET', '/api/v1/me/preferences', viewer.token)).body).toEqual(WIDGETS);
    expect((await api.call('GET', '/api/v1/me/preferences', owner.token)).body).toEqual({});
    // Replaced whole, and kept for the next sign-in of the same user.
    const reordered = { widgets: [{ id: 'usage', shown: true }] };
    expect((await api.call('PUT', '/api/v1/me/preferences', viewer.token, reordered)).status).toBe(200);
    const again = await api.signIn('viewer@acme.test', 'viewer', 'acme');
    expect((await api.call('GET', '/api/v1/me/preferences', again.token)).body).toEqual(reordered);
  });

  it('refuses more than 16 KB with 413 and anything but widget settings with 422, keeping what was saved', async () => {
    const user = await api.signIn('big@acme.test', 'member', 'acme');
    await api.call('PUT', '/api/v1/me/preferences', user.token, WIDGETS);
    const tooBig = await api.call('PUT', '/api/v1/me/preferences', user.token, { widgets: Array.from({ length: 400 }, (_, i) => ({ id: `widget-${'x'.repeat(40)}-${i}`, shown: true })) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining('16384') });
    const refusals = ['[1,2]', '42', 'null', 'true', '{"theme":"dark"}', '{"widgets":[{"id":"Events!","shown":true}]}', '{"widgets":[{"id":"events"}]}'];
    for (const body of refusals) {
      const refused = await api.call('PUT', '/api/v1/me/preferences', user.token, body);
      expect(refused.status, body).toBe(422);
      expect(refused.body).toMatchObject({ code: 'validation_failed' });
    }
    expect((await api.call('GET', '/api/v1/me/preferences', user.token)).body).toEqual(WIDGETS);
  });

  it('needs a signed-in caller', async () => {
    const response = await fetch(`${api.base}/api/v1/me/preferences`);
    expect(response.status).toBe(401);
  });
});
