/**
 * @module Provider credentials through the reconcile loop, against a sandbox cloud that accepts
 * only one token: `credentialsRef.secret` names a bundle stored (encrypted) through the API —
 * missing, the provider stalls saying how to store it; stored, it is used without a restart —
 * and `credentialsRef.env` fills the vendor's first credential field from a variable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { condition, isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const TOKEN = 'only-this-token-opens-the-sandbox';
const harness = useReconcileHarness({ cloud: { token: TOKEN } });

afterEach(() => {
  delete process.env.CAIRN_TEST_SANDBOX_TOKEN;
});

describe('provider credentials', () => {
  it('stalls on credentials that are not stored, then uses them once they are', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url, { credentialsRef: { secret: 'sandbox-creds' } }), serverManifest('cs-1'));
    h.controller.start();
    await h.until('the provider to stall', () => condition(h.get('Provider', 'cloud'), 'Synced')?.reason === 'CredentialsMissing');
    expect(condition(h.get('Provider', 'cloud'), 'Ready')?.message).toContain('credentials "sandbox-creds" are not stored; create them with POST /api/v1/providers');
    expect(h.get('Provider', 'cloud').status.phase).toBe('invalid');

    // What the API does when credentials are stored: the secret, then a wake of the provider.
    h.store.secrets.put('default', 'provider-credentials', 'sandbox-creds', JSON.stringify({ token: TOKEN }));
    h.store.resources.touch(h.get('Provider', 'cloud').uid);
    await h.until('the provider valid and the server running', () => isReady(h.get('Provider', 'cloud')) && isReady(h.get('Server', 'cs-1')));
    expect(h.get('Provider', 'cloud').status.phase).toBe('valid');
  });

  it('says the stored credentials are refused when the vendor does not take them', async () => {
    const h = harness();
    h.store.secrets.put('default', 'provider-credentials', 'wrong', JSON.stringify({ token: 'not-the-token' }));
    h.apply(providerManifest(h.cloud.url, { credentialsRef: { secret: 'wrong' } }));
    h.controller.start();
    await h.until('the provider invalid', () => h.get('Provider', 'cloud').status.phase === 'invalid');
    expect(isReady(h.get('Provider', 'cloud'))).toBe(false);
  });

  it('fills the vendor’s credential field from credentialsRef.env', async () => {
    const h = harness();
    process.env.CAIRN_TEST_SANDBOX_TOKEN = TOKEN;
    h.apply(providerManifest(h.cloud.url, { credentialsRef: { env: 'CAIRN_TEST_SANDBOX_TOKEN' } }), serverManifest('ce-1'));
    h.controller.start();
    await h.until('the server running', () => isReady(h.get('Server', 'ce-1')));
    expect(isReady(h.get('Server', 'ce-1'))).toBe(true);
  });
});
