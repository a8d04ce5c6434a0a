/**
 * @module The planner checked by properties (fast-check) over random desired and recorded
 * worlds: a plan carried out and planned again changes nothing; the order of manifests and of
 * records does not change the plan; a plan deletes only what it was asked to prune, and never
 * something still declared.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Kind } from './kinds.js';
import { planChanges, type Plan, type PlanDesired, type PlanRecorded } from './plan.js';
import { importedExternalId, resourceKey } from './resource.js';

const KIND_SPECS: Record<Kind, fc.Arbitrary<object>> = {
  Provider: fc.record({ vendor: fc.constantFrom('sandbox', 'local') }),
  SSHKey: fc.record({ algorithm: fc.constantFrom('ed25519', 'rsa') }),
  Server: fc.record({ provider: fc.constant('p'), region: fc.constantFrom('eu-1', 'us-1'), size: fc.constantFrom('small', 'medium'), image: fc.constant('debian-12') }),
  Database: fc.record({ type: fc.constant('postgresql'), server: fc.constant('s'), version: fc.constantFrom('15', '16'), storageGb: fc.integer({ min: 1, max: 3 }) }),
  App: fc.record({
    server: fc.constant('s'), source: fc.record({ image: fc.constantFrom('shop:1', 'shop:2') }),
    env: fc.dictionary(fc.constantFrom('A', 'B', 'C'), fc.constantFrom('x', 'y')),
  }),
  AlertRule: fc.record({ metric: fc.constantFrom('cpu_percent', 'disk_percent'), threshold: fc.integer({ min: 0, max: 100 }), selector: fc.record({ labels: fc.dictionary(fc.constantFrom('tier'), fc.constantFrom('web', 'db')) }) }),
};

/** One resource's identity: few names and namespaces, so desired and recorded overlap often. */
const identity = fc.record({ kind: fc.constantFrom<Kind>('Provider', 'SSHKey', 'Server', 'Database', 'App', 'AlertRule'), namespace: fc.constantFrom('default', 'team-a'), name: fc.constantFrom('a', 'b', 'c', 'd') });

const desiredResource: fc.Arbitrary<PlanDesired> = identity.chain((id) =>
  fc.record({
    kind: fc.constant(id.kind), namespace: fc.constant(id.namespace), name: fc.constant(id.name),
    labels: fc.dictionary(fc.constantFrom('team', 'tier'), fc.constantFrom('shop', 'data')),
    annotations: fc.constantFrom<Record<string, string>>({}, { 'cairn.dev/external-id': 'vid-1' }, { 'cairn.dev/external-id': 'vid-2' }),
    spec: KIND_SPECS[id.kind],
  }),
);

const unique = <T extends PlanDesired>(items: T[]): T[] => [...new Map(items.map((i) => [resourceKey(i), i])).values()];

const desiredWorld = fc.array(desiredResource, { maxLength: 24 }).map(unique);
const recordedWorld: fc.Arbitrary<PlanRecorded[]> = fc
  .array(fc.tuple(desiredResource, fc.constantFrom('api', 'git:infra', 'git:other'), fc.constantFrom(undefined, null, 'vid-1')), { maxLength: 24 })
  .map((items) => unique(items.map(([d, source, externalId]) => ({ ...d, uid: `uid-${resourceKey(d)}`, deleting: false, source, externalId }))));

/** What the world records once every change of `plan` is carried out. */
function carryOut(plan: Plan, desired: readonly PlanDesired[], recorded: readonly PlanRecorded[]): PlanRecorded[] {
  const byKey = new Map(recorded.map((r) => [resourceKey(r), r]));
  const wanted = new Map(desired.map((d) => [resourceKey(d), d]));
  for (const change of plan.changes) {
    const key = resourceKey(change);
    const before = byKey.get(key);
    // An import adopts the vendor's id; other changes keep what was known of it.
    const externalId = change.action === 'import' ? change.externalId : before?.externalId;
    if (change.action === 'delete') byKey.delete(key);
    else if (change.action !== 'noop') byKey.set(key, { ...wanted.get(key)!, uid: before?.uid ?? `new-${key}`, deleting: false, source: 'api', externalId });
  }
  return [...byKey.values()];
}

const changing = (plan: Plan) => plan.changes.filter((c) => c.action !== 'noop');

describe('planChanges, by property', () => {
  it('carried out, then planned again, changes nothing', () => {
    fc.assert(
      fc.property(desiredWorld, recordedWorld, (desired, recorded) => {
        const plan = planChanges(desired, recorded);
        const again = planChanges(desired, carryOut(plan, desired, recorded));
        expect(changing(again)).toEqual([]);
        expect(again.summary.noop).toBe(desired.length);
      }),
      { numRuns: 300 },
    );
  });

  it('never creates what names a vendor id: an annotated resource cairn holds no id for is imported by that id', () => {
    fc.assert(
      fc.property(desiredWorld, recordedWorld, (desired, recorded) => {
        const plan = planChanges(desired, recorded);
        for (const change of plan.changes) {
          const wanted = desired.find((d) => resourceKey(d) === resourceKey(change));
          const id = wanted === undefined ? undefined : importedExternalId(wanted);
          if (id !== undefined) expect(change.action).not.toBe('create');
          if (change.action === 'import') expect(change.externalId).toBe(id);
          const had = recorded.find((r) => resourceKey(r) === resourceKey(change));
          if (id !== undefined && had === undefined) expect(change.action).toBe('import');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the order of manifests or of records', () => {
    fc.assert(
      fc.property(desiredWorld, recordedWorld, fc.integer(), (desired, recorded, seed) => {
        const shuffle = <T>(items: readonly T[]): T[] => {
          const copy = [...items];
          let state = seed;
          for (let i = copy.length - 1; i > 0; i--) {
            state = (Math.imul(state, 1103515245) + 12345) | 0;
            const j = Math.abs(state) % (i + 1);
            [copy[i], copy[j]] = [copy[j]!, copy[i]!];
          }
          return copy;
        };
        expect(planChanges(shuffle(desired), shuffle(recorded))).toEqual(planChanges(desired, recorded));
      }),
      { numRuns: 300 },
    );
  });

  it('deletes only what it was asked to prune, and never what is still declared', () => {
    fc.assert(
      fc.property(desiredWorld, recordedWorld, fc.constantFrom(undefined, 'git:infra'), (desired, recorded, source) => {
        const declared = new Set(desired.map(resourceKey));
        expect(planChanges(desired, recorded, { prune: false }).summary.delete).toBe(0);
        const plan = planChanges(desired, recorded, { prune: true, ...(source ? { scope: { source } } : {}) });
        const deleted = plan.changes.filter((c) => c.action === 'delete');
        for (const change of deleted) {
          expect(declared.has(resourceKey(change))).toBe(false);
          if (source) expect(recorded.find((r) => resourceKey(r) === resourceKey(change))?.source).toBe(source);
        }
        const prunable = recorded.filter((r) => !declared.has(resourceKey(r)) && (source === undefined || r.source === source));
        expect(deleted.length).toBe(prunable.length);
      }),
      { numRuns: 300 },
    );
  });
});
