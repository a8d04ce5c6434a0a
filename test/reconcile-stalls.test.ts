/**
 * @module Stalls are visible and retried (issue #22, item 3): a server whose provider's token is
 * refused says `error` with the vendor's message at once, not `pending`; once the credentials
 * work the provider is looked at again without anyone touching cairn, and the server follows.
 * Each transition is one event (Failed on entering error, Ready on becoming ready), which event
 * webhooks send as resource.failed and resource.ready.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyManifest } from '../src/model/resource.js';
import { condition, isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const TOKEN = 'the-right-token';
const harness = useReconcileHarness({ cloud: { token: TOKEN } });

afterEach(() => {
  delete process.env.CAIRN_TEST_STALL_TOKEN;
});

describe('a provider whose token is refused', () => {
  it("shows its server in error with the vendor's message, then recovers by itself once the token works", async () => {
    const h = harness();
    process.env.CAIRN_TEST_STALL_TOKEN = 'a-wrong-token';
    h.apply(providerManifest(h.cloud.url, { credentialsRef: { env: 'CAIRN_TEST_STALL_TOKEN' } }), serverManifest('web-1'));
    h.controller.start();
    await h.until('web-1 in error', () => h.get('Server', 'web-1').status.phase === 'error', 5_000);
    const ready = condition(h.get('Server', 'web-1'), 'Ready');
    expect(ready?.reason).toBe('DependencyFailed');
    expect(ready?.message).toMatch(/^Provider\/cloud is invalid: .*(401|token)/i);

    process.env.CAIRN_TEST_STALL_TOKEN = TOKEN;
    await h.until('web-1 ready', () => isReady(h.get('Server', 'web-1')), 15_000);
    expect(h.get('Server', 'web-1').status.phase).toBe('running');
    const transitions = h.store.events.list({ tenant: 'default', uid: h.get('Server', 'web-1').uid, limit: 100 })
      .filter((e) => e.reason === 'Failed' || e.reason === 'Ready').reverse();
    expect(transitions.map((e) => [e.reason, e.type])).toEqual([['Failed', 'Warning'], ['Ready', 'Normal']]);
    expect(transitions[0]!.message).toMatch(/^server web-1 is error: Provider\/cloud is invalid/);
  });
});

describe('a managed database at a vendor that runs none', () => {
  it('stalls before anything is created, naming what to do instead', async () => {
    const h = harness();
    const managed: AnyManifest = {
      apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'default' },
      spec: { type: 'postgresql', version: '16', managed: true, provider: 'cloud', region: 'eu-1', size: 'db-small' },
    };
    h.apply(providerManifest(h.cloud.url, { credentialsRef: { env: 'CAIRN_TEST_STALL_TOKEN' } }), managed);
    process.env.CAIRN_TEST_STALL_TOKEN = TOKEN;
    h.controller.start();
    await h.until('orders stalled', () => condition(h.get('Database', 'orders'), 'Ready')?.reason === 'NoManagedDatabases', 5_000);
    expect(condition(h.get('Database', 'orders'), 'Ready')?.message).toMatch(
      /^Provider\/cloud: vendor sandbox has no managed databases in cairn; (no vendor in cairn runs managed postgresql yet|managed postgresql run at .+), or place the database on a server \(spec\.server\)$/,
    );
    expect(h.get('Database', 'orders').status.externalId ?? null).toBeNull();
  });
});

describe('a server naming fields its provider\'s vendor does not take', () => {
  it('stalls before anything is created, naming the field: a sandbox server without region, or with a host', async () => {
    const h = harness();
    process.env.CAIRN_TEST_STALL_TOKEN = TOKEN;
    const server = (name: string, spec: Record<string, unknown>): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name, namespace: 'default' }, spec: { provider: 'cloud', ...spec } });
    h.apply(
      providerManifest(h.cloud.url, { credentialsRef: { env: 'CAIRN_TEST_STALL_TOKEN' } }),
      server('no-region', { size: 'small' }),
      server('with-host', { region: 'eu-1', size: 'small', host: '203.0.113.10' }),
    );
    h.controller.start();
    const stalledOn = async (name: string): Promise<string> => {
      await h.until(`${name} stalled`, () => /spec\./.test(condition(h.get('Server', name), 'Ready')?.message ?? ''), 5_000);
      return condition(h.get('Server', name), 'Ready')?.message ?? '';
    };
    expect(await stalledOn('no-region')).toContain('spec.region: required: Provider/cloud is of vendor sandbox');
    expect(await stalledOn('with-host')).toContain('spec.host: only a server of a Provider of vendor ssh (an existing host) takes host');
    expect(h.get('Server', 'no-region').status.externalId ?? null).toBeNull();
    expect(h.get('Server', 'with-host').status.externalId ?? null).toBeNull();
  });
});
