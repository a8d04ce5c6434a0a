/**
 * @module Stalls are visible and retried (issue #22, item 3): a server whose provider's token is
 * refused says `error` with the vendor's message at once, not `pending`; once the credentials
 * work the provider is looked at again without anyone touching cairn, and the server follows.
 */
import { afterEach, describe, expect, it } from 'vitest';
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
  });
});
