/** @module The plan's quota on the Kubernetes API: a create past the limit is a 403 Forbidden Status naming the plan and limit; dry runs say so too. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKubeFixture, type KubeFixture } from './kube-fixture.js';

const NS = '/apis/cairn.dev/v1/namespaces/default';
const server = (name: string): Record<string, unknown> => ({ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } });

let f: KubeFixture;
beforeAll(async () => {
  f = await openKubeFixture({ env: { CAIRN_STRIPE_SECRET_KEY: 'sk_test_kube' } });
});
afterAll(async () => {
  await f.close();
});

describe('quotas through kubectl\'s API', () => {
  it('refuses the free plan\'s third server with 403 Forbidden naming the plan and limit, dry run included', async () => {
    for (const name of ['web-1', 'web-2']) expect((await f.call('POST', `${NS}/servers`, { body: server(name) })).status).toBe(201);
    const dry = await f.call('POST', `${NS}/servers?dryRun=All`, { body: server('web-3') });
    const refused = await f.call('POST', `${NS}/servers`, { body: server('web-3') });
    for (const answer of [dry, refused]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
      expect(String(answer.body.message)).toContain('the free plan allows 2 servers; this would make 3');
    }
    expect(f.store.resources.countLive('default', 'Server')).toBe(2);
  });
});
