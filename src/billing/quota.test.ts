/** @module Tests of quotas as the store enforces them: counting in the write's transaction, plans by status, billing off. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuotaExceededError } from '../model/errors.js';
import type { AnyManifest } from '../model/resource.js';
import type { SubscriptionState } from '../store/billing-accounts.js';
import { Store } from '../store/store.js';

const BILLING_ON = { CAIRN_STRIPE_SECRET_KEY: 'sk_test_x' };
const provider: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } };
const server = (name: string, size = 'small'): AnyManifest => ({
  apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name }, spec: { provider: 'sandbox', region: 'eu-1', size },
});
const subscription = (plan: string, status: SubscriptionState['status']): SubscriptionState => ({
  subscriptionId: 'sub_1', plan, status, trialEndsAt: null, currentPeriodStart: null, currentPeriodEnd: null, cancelAtPeriodEnd: false,
});

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-quota-'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('quotas', () => {
  it('refuse the free plan\'s third server, naming plan and limit, and undo the whole write', () => {
    store = Store.open(dir, { env: BILLING_ON });
    store.resources.apply('default', 'api', [provider, server('web-1'), server('web-2')]);
    const attempt = (): unknown => store.resources.apply('default', 'api', [server('web-1', 'large'), server('web-3')]);
    expect(attempt).toThrow(QuotaExceededError);
    expect(attempt).toThrow('the free plan allows 2 servers; this would make 3');
    expect(store.resources.countLive('default', 'Server')).toBe(2);
    expect(store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' })?.spec).toMatchObject({ size: 'small' });
  });

  it('never refuse updates or deletes, and count per tenant without resources being deleted', () => {
    store = Store.open(dir, { env: BILLING_ON });
    store.resources.apply('default', 'api', [provider, server('web-1'), server('web-2')]);
    expect(store.resources.apply('default', 'api', [server('web-1', 'large')]).results[0]?.action).toBe('updated');
    const other = store.tenants.findOrCreate('other').tenant.id;
    store.resources.apply(other, 'api', [provider, server('web-1'), server('web-2')]);
    store.resources.requestDeletion('default', 'api', [{ kind: 'Server', namespace: 'default', name: 'web-2' }]);
    expect(store.resources.apply('default', 'api', [server('web-3')]).results[0]?.action).toBe('created');
    // Re-applying the one being deleted would bring it back: a third live server.
    expect(() => store.resources.apply('default', 'api', [server('web-2')])).toThrow('the free plan allows 2 servers; this would make 3');
  });

  it('give trialing and active tenants their plan, fall back to free when canceled, and refuse every create when past due', () => {
    store = Store.open(dir, { env: BILLING_ON });
    store.resources.apply('default', 'api', [provider, server('web-1'), server('web-2')]);
    store.billing.saveSubscription('default', subscription('pro', 'trialing'));
    store.resources.apply('default', 'api', [server('web-3')]);
    store.billing.saveSubscription('default', subscription('pro', 'past_due'));
    expect(() => store.resources.apply('default', 'api', [server('web-4')])).toThrow(/the pro plan's payment is past due/);
    expect(store.resources.apply('default', 'api', [server('web-3', 'large')]).results[0]?.action).toBe('updated');
    store.billing.saveSubscription('default', subscription('pro', 'active'));
    store.resources.apply('default', 'api', [server('web-4')]);
    store.billing.saveSubscription('default', subscription('pro', 'canceled'));
    expect(() => store.resources.apply('default', 'api', [server('web-5')])).toThrow('the free plan allows 2 servers; this would make 5');
    expect(store.resources.countLive('default', 'Server')).toBe(4);
  });

  it('limit databases and apps as well, in the singular when the limit is one', () => {
    store = Store.open(dir, { env: BILLING_ON });
    const database = (name: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: { name }, spec: { type: 'postgresql', server: 'web-1', version: '16', storageGb: 10 } });
    const app = (name: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'App', metadata: { name }, spec: { server: 'web-1', source: { image: 'nginx:1' } } });
    store.resources.apply('default', 'api', [provider, server('web-1'), database('db-1'), app('app-1'), app('app-2')]);
    expect(() => store.resources.apply('default', 'api', [database('db-2')])).toThrow('the free plan allows 1 database; this would make 2');
    expect(() => store.resources.apply('default', 'api', [app('app-3')])).toThrow('the free plan allows 2 apps; this would make 3');
  });

  it('are not enforced with billing off (a self-hosted cairn)', () => {
    store = Store.open(dir, { env: {} });
    store.resources.apply('default', 'api', [provider, ...Array.from({ length: 5 }, (_, i) => server(`web-${i + 1}`))]);
    expect(store.resources.countLive('default', 'Server')).toBe(5);
  });
});
