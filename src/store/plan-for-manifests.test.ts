/**
 * @module The plan against the store reads only desired state (no status, nothing parsed but
 * labels, annotations and spec): it must plan exactly what planning against full stored resources
 * plans, for resources of other sources, other tenants, being deleted, and in any field order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { desiredFromManifest, planChanges, recordedFromStored } from '../model/plan.js';
import type { AnyManifest } from '../model/resource.js';
import { planForManifests } from './plan-for-manifests.js';
import { Store } from './store.js';

const provider: AnyManifest = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox', labels: { team: 'a' } }, spec: { vendor: 'sandbox' } };
const server = (name: string, size: string, namespace = 'default'): AnyManifest => ({
  apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name, namespace, annotations: { note: name } }, spec: { provider: 'sandbox', region: 'eu-1', size },
});

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-plan-store-'));
  store = Store.open(dir);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('planForManifests', () => {
  it('plans against desired state read alone exactly as against full stored resources', () => {
    store.resources.apply('default', 'api', [provider, server('a', 'small'), server('b', 'small'), server('c', 'small'), server('d', 'small', 'other')]);
    store.resources.apply('default', 'git:1', [{ ...server('e', 'small'), spec: { size: 'small', region: 'eu-1', provider: 'sandbox' } } as AnyManifest]);
    const other = store.tenants.findOrCreate('tenant-2').tenant.id;
    store.resources.apply(other, 'api', [provider, server('a', 'large')]);
    store.resources.requestDeletion('default', 'api', [{ kind: 'Server', namespace: 'default', name: 'c' }]);
    const manifests = [provider, server('a', 'large'), server('c', 'small'), server('e', 'small'), server('f', 'small')];
    for (const prune of [false, true]) {
      for (const tenant of ['default', other]) {
        const slow = planChanges(manifests.map(desiredFromManifest), store.resources.list({ tenant }).map(recordedFromStored), { prune });
        expect(planForManifests(store, manifests, { prune, tenant })).toEqual(slow);
      }
    }
    const plan = planForManifests(store, manifests, { prune: true });
    expect(plan.summary).toEqual({ create: 2, import: 0, update: 1, replace: 0, delete: 2, noop: 2 });
  });

  it('lists desired state as list does, without status', () => {
    store.resources.apply('default', 'api', [provider, server('a', 'small')]);
    store.resources.apply('default', 'git:1', [server('b', 'small')]);
    for (const filter of [{ tenant: 'default' }, { tenant: 'default', source: 'git:1' }, { tenant: 'nobody' }]) {
      const full = store.resources.list(filter).map((r) => ({ uid: r.uid, kind: r.kind, namespace: r.namespace, name: r.name, labels: r.labels, annotations: r.annotations, spec: r.spec, source: r.source, deletionTimestamp: r.deletionTimestamp }));
      const desired = store.resources.listDesired(filter).map((r) => ({ ...r, labels: JSON.parse(r.labels) as unknown, annotations: JSON.parse(r.annotations) as unknown, spec: JSON.parse(r.spec) as unknown }));
      expect(desired).toEqual(full);
    }
  });
});
