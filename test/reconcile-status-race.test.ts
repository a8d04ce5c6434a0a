/**
 * @module One writer of status: the provider test route and a reconcile of the same provider,
 * interleaved (the route writes while the reconcile waits on the vendor), both end up in the
 * provider's status — the route's `testedAt` and the reconciler's phase and conditions — where
 * the reconciler's write, made from its older read, used to drop the route's.
 */
import { describe, expect, it } from 'vitest';
import { recordCredentialTest } from '../src/api/provider-test-record.js';
import type { StoredResource } from '../src/model/resource.js';
import { condition, providerManifest, useReconcileHarness } from './support/reconcile-harness.js';

const harness = useReconcileHarness({ cloud: { latencyMs: 600 } });

describe('status written by the test route while a reconcile waits on the vendor', () => {
  it('keeps both changes', async () => {
    const h = harness();
    h.apply(providerManifest(h.cloud.url));
    const accountCalls = (): number => h.cloud.stats().byRoute['GET /v1/account'] ?? 0;
    const before = accountCalls();
    h.controller.start();
    // The reconcile has read the provider and waits for the vendor's answer to its credential test.
    await h.until('the reconcile to call the vendor', () => accountCalls() > before);
    const read = h.get('Provider', 'cloud') as StoredResource<'Provider'>;
    expect(read.status.phase).toBe('untested');
    // A test through the API that found the credentials refused a moment before they were fixed.
    const testedAt = new Date().toISOString();
    recordCredentialTest(h.store, read, { ok: false, message: 'refused (tested by hand)' }, testedAt);
    expect(h.get('Provider', 'cloud').status.details?.['testedAt']).toBe(testedAt);

    // The reconcile's answer comes: its write is refused (the status moved on), it reconciles again from a fresh read.
    await h.until('the provider to be valid', () => h.get('Provider', 'cloud').status.phase === 'valid');
    const after = h.get('Provider', 'cloud');
    expect(after.status.details?.['testedAt']).toBe(testedAt);
    expect(condition(after, 'Ready')).toMatchObject({ reason: 'CredentialsValid' });
    expect(after.statusVersion).toBeGreaterThan(read.statusVersion);
    const events = h.store.events.list({ tenant: 'default', uid: after.uid }).map((e) => e.reason);
    expect(events).toContain('CredentialsInvalid');
    expect(events).toContain('CredentialsValid');
  });
});
