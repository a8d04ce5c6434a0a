import { describe, expect, it } from 'vitest';
import { REPLACEMENT_FIELDS, type Kind } from './kinds.js';
import { ValidationError } from './errors.js';
import { desiredFromManifest, planChanges, planHasChanges, recordedFromStored, type FieldDiff, type PlanDesired, type PlanRecorded } from './plan.js';
import type { AnyManifest, StoredResource } from './resource.js';

function desired(kind: Kind, name: string, spec: object, meta: Partial<PlanDesired> = {}): PlanDesired {
  return { kind, namespace: 'default', name, labels: {}, annotations: {}, spec, ...meta };
}

function recorded(d: PlanDesired, extra: Partial<PlanRecorded> = {}): PlanRecorded {
  return { ...d, uid: `uid-${d.kind}-${d.name}`, deleting: false, ...extra };
}

const server = (name: string, spec: object = {}, meta: Partial<PlanDesired> = {}): PlanDesired =>
  desired('Server', name, { provider: 'sandbox', region: 'eu-1', size: 'small', image: 'debian-12', ...spec }, meta);
const database = (name: string, spec: object = {}): PlanDesired =>
  desired('Database', name, { type: 'postgresql', server: 'web-1', version: '16', backup: { schedule: '0 3 * * *', retention: 7 }, ...spec });
const app = (name: string, spec: object = {}): PlanDesired =>
  desired('App', name, { server: 'web-1', source: { git: { url: 'https://git.example.com/shop.git', ref: 'main' } }, env: { API_KEY: 's3cr3t-old' }, databases: ['shop-db'], ...spec });
const provider = (name: string, spec: object = {}): PlanDesired => desired('Provider', name, { vendor: 'sandbox', ...spec });

/** The single change of a one-resource plan. */
function onlyChange(want: PlanDesired, have: PlanDesired) {
  const plan = planChanges([want], [recorded(have)]);
  expect(plan.changes).toHaveLength(1);
  return plan.changes[0]!;
}

function diffAt(diff: FieldDiff[], path: string): FieldDiff | undefined {
  return diff.find((d) => d.path === path);
}

describe('planChanges: actions', () => {
  it('plans a create with every spec field and label, and no uid', () => {
    const plan = planChanges([server('web-1', {}, { labels: { team: 'shop' } })], []);
    const [change] = plan.changes;
    expect(change).toMatchObject({ action: 'create', kind: 'Server', namespace: 'default', name: 'web-1' });
    expect(change!.uid).toBeUndefined();
    expect(change!.diff.map((d) => d.path)).toEqual(['spec.image', 'spec.provider', 'spec.region', 'spec.size', 'metadata.labels.team']);
    expect(change!.diff.every((d) => d.before === undefined && !d.forcesReplacement)).toBe(true);
    expect(plan.summary).toEqual({ create: 1, import: 0, update: 0, replace: 0, delete: 0, noop: 0 });
  });

  it('plans an import, with the vendor id, for a new manifest annotated cairn.dev/external-id', () => {
    const plan = planChanges([server('web-1', {}, { annotations: { 'cairn.dev/external-id': 'srv-42' } })], []);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ action: 'import', kind: 'Server', name: 'web-1', externalId: 'srv-42' });
    expect(plan.summary).toEqual({ create: 0, import: 1, update: 0, replace: 0, delete: 0, noop: 0 });
    expect(planHasChanges(plan)).toBe(true);
  });

  it('plans an import when the annotation is added to a recorded resource that has no vendor id yet', () => {
    const want = server('web-1', {}, { annotations: { 'cairn.dev/external-id': 'srv-42' } });
    const stalled = planChanges([want], [recorded(server('web-1'), { externalId: null })]);
    expect(stalled.changes[0]).toMatchObject({ action: 'import', uid: 'uid-Server-web-1', externalId: 'srv-42' });
    // Once cairn holds a vendor id, the annotation is a plain metadata change, never a second import.
    const created = planChanges([want], [recorded(server('web-1'), { externalId: 'srv-1' })]);
    expect(created.changes[0]).toMatchObject({ action: 'update' });
    // Already annotated alike: nothing to do.
    expect(planChanges([want], [recorded(want, { externalId: null })]).changes[0]).toMatchObject({ action: 'noop' });
  });

  it('does not treat a blank cairn.dev/external-id as an import', () => {
    const plan = planChanges([server('web-1', {}, { annotations: { 'cairn.dev/external-id': '  ' } })], []);
    expect(plan.changes[0]).toMatchObject({ action: 'create' });
  });

  it('plans a noop for the same manifest, listed with its uid', () => {
    const change = onlyChange(server('web-1'), server('web-1'));
    expect(change).toMatchObject({ action: 'noop', uid: 'uid-Server-web-1', diff: [], replacementReasons: [] });
  });

  it('plans an update with exactly one FieldDiff for one changed field', () => {
    const change = onlyChange(server('web-1', { size: 'medium' }), server('web-1'));
    expect(change.action).toBe('update');
    expect(change.diff).toEqual([{ path: 'spec.size', before: 'small', after: 'medium', forcesReplacement: false, sensitive: false }]);
  });

  it('plans an update when only labels or annotations change', () => {
    const labelled = onlyChange(server('web-1', {}, { labels: { team: 'data' } }), server('web-1', {}, { labels: { team: 'shop' } }));
    expect(labelled.action).toBe('update');
    expect(labelled.diff).toEqual([{ path: 'metadata.labels.team', before: 'shop', after: 'data', forcesReplacement: false, sensitive: false }]);
    const annotated = onlyChange(server('web-1', {}, { annotations: { 'cairn.dev/self-heal': 'false' } }), server('web-1'));
    expect(annotated.action).toBe('update');
    expect(annotated.diff.map((d) => [d.path, d.before, d.after])).toEqual([['metadata.annotations["cairn.dev/self-heal"]', undefined, 'false']]);
  });

  it('plans a delete for a recorded resource no longer desired, with its uid', () => {
    const plan = planChanges([], [recorded(server('old'))]);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ action: 'delete', name: 'old', uid: 'uid-Server-old' });
    expect(plan.changes[0]!.diff.every((d) => d.after === undefined)).toBe(true);
    expect(plan.summary.delete).toBe(1);
  });

  it('omits recorded-but-not-desired resources when prune is false', () => {
    const plan = planChanges([server('web-1')], [recorded(server('web-1')), recorded(server('old'))], { prune: false });
    expect(plan.changes.map((c) => [c.action, c.name])).toEqual([['noop', 'web-1']]);
    expect(plan.summary.delete).toBe(0);
  });

  it('plans a create when the recorded resource is already being deleted', () => {
    const plan = planChanges([server('web-1')], [recorded(server('web-1'), { deleting: true })]);
    expect(plan.changes[0]).toMatchObject({ action: 'create', name: 'web-1' });
    expect(plan.changes[0]!.uid).toBeUndefined();
  });

  it('still lists a delete already under way', () => {
    const plan = planChanges([], [recorded(server('old'), { deleting: true })]);
    expect(plan.changes.map((c) => c.action)).toEqual(['delete']);
  });

  it('rejects a resource declared twice', () => {
    expect(() => planChanges([server('web-1'), server('web-1')], [])).toThrow(ValidationError);
  });
});

describe('planChanges: nested field diffs', () => {
  it('diffs env entries, backup.schedule and source.git.ref to their leaves', () => {
    const dbChange = onlyChange(database('shop-db', { backup: { schedule: '0 4 * * *', retention: 7 } }), database('shop-db'));
    expect(dbChange.diff.map((d) => [d.path, d.before, d.after])).toEqual([['spec.backup.schedule', '0 3 * * *', '0 4 * * *']]);

    const refChange = onlyChange(app('shop', { source: { git: { url: 'https://git.example.com/shop.git', ref: 'v2' } } }), app('shop'));
    expect(refChange.diff.map((d) => [d.path, d.before, d.after])).toEqual([['spec.source.git.ref', 'main', 'v2']]);

    const envChange = onlyChange(app('shop', { env: { API_KEY: 's3cr3t-old', NODE_ENV: 'production' } }), app('shop'));
    expect(envChange.diff.map((d) => d.path)).toEqual(['spec.env.NODE_ENV']);
  });

  it('diffs arrays by index, with added and removed items', () => {
    const added = onlyChange(app('shop', { databases: ['shop-db', 'cache-db'] }), app('shop'));
    expect(added.diff.map((d) => [d.path, d.before, d.after])).toEqual([['spec.databases[1]', undefined, 'cache-db']]);
    const removed = onlyChange(app('shop'), app('shop', { databases: ['shop-db', 'cache-db'] }));
    expect(removed.diff.map((d) => [d.path, d.before, d.after])).toEqual([['spec.databases[1]', 'cache-db', undefined]]);
    const fromNothing = onlyChange(app('shop'), app('shop', { databases: undefined }));
    expect(fromNothing.diff.map((d) => [d.path, d.before, d.after])).toEqual([['spec.databases[0]', undefined, 'shop-db']]);
  });

  it('shows a field written as empty against one left out', () => {
    const change = onlyChange(app('shop', { env: {} }), app('shop', { env: undefined }));
    expect(change.diff.map((d) => [d.path, d.after])).toEqual([['spec.env', '(sensitive)']]);
  });

  it('reports a change of shape as one diff of the whole value', () => {
    const change = onlyChange(desired('Provider', 'p', { vendor: 'sandbox', credentialsRef: 'x' }), desired('Provider', 'p', { vendor: 'sandbox', credentialsRef: { env: 'TOKEN' } }));
    expect(change.diff).toEqual([{ path: 'spec.credentialsRef', before: { env: 'TOKEN' }, after: 'x', forcesReplacement: false, sensitive: false }]);
  });
});

describe('planChanges: replacement', () => {
  const base: Record<Kind, (spec?: object) => PlanDesired> = {
    Provider: (spec) => provider('sandbox', spec),
    SSHKey: (spec) => desired('SSHKey', 'deploy', { ...spec }),
    Server: (spec) => server('web-1', spec),
    Database: (spec) => database('shop-db', spec),
    App: (spec) => app('shop', spec),
    AlertRule: (spec) => desired('AlertRule', 'high-cpu', { metric: 'cpu_percent', threshold: 90, selector: { labels: { tier: 'web' } }, ...spec }),
  };
  const cases = Object.entries(REPLACEMENT_FIELDS).flatMap(([kind, fields]) => fields.map((field) => [kind as Kind, field] as const));

  it.each(cases)('%s: a change of spec.%s replaces it and says why', (kind, field) => {
    const change = onlyChange(base[kind]({ [field]: 'something-else' }), base[kind]());
    expect(change.action).toBe('replace');
    expect(change.replacementReasons).toEqual([`spec.${field}: changing the ${field} replaces the ${kind.toLowerCase()}`]);
    expect(change.diff).toEqual([expect.objectContaining({ path: `spec.${field}`, forcesReplacement: true })]);
  });

  it('marks only the forcing field when a replace also changes others', () => {
    const change = onlyChange(server('web-1', { region: 'us-1', size: 'large' }), server('web-1'));
    expect(change.diff.map((d) => [d.path, d.forcesReplacement])).toEqual([['spec.region', true], ['spec.size', false]]);
    expect(change.replacementReasons).toEqual(['spec.region: changing the region replaces the server']);
  });
});

describe('planChanges: sensitive values', () => {
  it('masks App env values but still detects their change', () => {
    const change = onlyChange(app('shop', { env: { API_KEY: 's3cr3t-new' } }), app('shop'));
    expect(change.action).toBe('update');
    expect(change.diff).toEqual([{ path: 'spec.env.API_KEY', before: '(sensitive)', after: '(sensitive)', forcesReplacement: false, sensitive: true }]);
    expect(JSON.stringify(change)).not.toContain('s3cr3t');
  });

  it('masks env values on create and delete, keeping absence absent', () => {
    const created = planChanges([app('shop')], []).changes[0]!;
    expect(diffAt(created.diff, 'spec.env.API_KEY')).toMatchObject({ before: undefined, after: '(sensitive)', sensitive: true });
    expect(diffAt(created.diff, 'spec.server')).toMatchObject({ after: 'web-1', sensitive: false });
    const deleted = planChanges([], [recorded(app('shop'))]).changes[0]!;
    expect(diffAt(deleted.diff, 'spec.env.API_KEY')).toMatchObject({ before: '(sensitive)', after: undefined, sensitive: true });
  });

  it('masks a Server\'s user data, which may carry secrets, and replaces the server when it changes', () => {
    const change = onlyChange(server('web-1', { userData: '#!/bin/sh\necho token=n3w-s3cr3t\n' }), server('web-1', { userData: '#!/bin/sh\necho token=0ld-s3cr3t\n' }));
    expect(change.action).toBe('replace');
    expect(change.diff).toEqual([{ path: 'spec.userData', before: '(sensitive)', after: '(sensitive)', forcesReplacement: true, sensitive: true }]);
    expect(JSON.stringify(change)).not.toContain('s3cr3t');
  });

  it('masks a whole env replaced by a value of another shape', () => {
    const change = onlyChange(app('shop', { env: 'API_KEY=s3cr3t-new' }), app('shop'));
    expect(change.diff).toEqual([expect.objectContaining({ path: 'spec.env', before: '(sensitive)', after: '(sensitive)', sensitive: true })]);
  });
});

describe('planChanges: order and scope', () => {
  it('orders creates by dependency and deletes in reverse, after the rest', () => {
    const want = [app('shop'), database('shop-db'), server('web-1'), provider('sandbox'), server('api', {}, { namespace: 'a-team' })];
    const have = [recorded(provider('old-p')), recorded(app('old-app')), recorded(server('old-s')), recorded(database('old-db'))];
    const plan = planChanges(want, have);
    expect(plan.changes.map((c) => `${c.action} ${c.kind}/${c.namespace}/${c.name}`)).toEqual([
      'create Provider/default/sandbox',
      'create Server/a-team/api',
      'create Server/default/web-1',
      'create Database/default/shop-db',
      'create App/default/shop',
      'delete App/default/old-app',
      'delete Database/default/old-db',
      'delete Server/default/old-s',
      'delete Provider/default/old-p',
    ]);
  });

  it('gives the same plan whatever order the inputs come in', () => {
    const want = [server('b'), server('a', { size: 'large' }), app('shop')];
    const have = [recorded(server('a')), recorded(server('z')), recorded(server('b'))];
    const forward = planChanges(want, have);
    const backward = planChanges([...want].reverse(), [...have].reverse());
    expect(backward).toEqual(forward);
  });

  it('limits the plan to the scope, and prunes only what the source owns', () => {
    const have = [recorded(server('mine'), { source: 'git:1' }), recorded(server('theirs'), { source: 'api' }), recorded(app('other-kind'))];
    const plan = planChanges([], have, { scope: { kinds: ['Server'], source: 'git:1' } });
    expect(plan.changes.map((c) => `${c.action} ${c.name}`)).toEqual(['delete mine']);
    const byNamespace = planChanges([server('x', {}, { namespace: 'prod' }), server('y')], [], { scope: { namespaces: ['prod'] } });
    expect(byNamespace.changes.map((c) => c.name)).toEqual(['x']);
  });
});

describe('adapters', () => {
  it('builds a noop plan from a manifest and the stored resource applied from it', () => {
    const manifest: AnyManifest = {
      apiVersion: 'cairn.dev/v1',
      kind: 'Server',
      metadata: { name: 'web-1', labels: { team: 'shop' } },
      spec: { provider: 'sandbox', region: 'eu-1', size: 'small' },
    };
    const stored: StoredResource<'Server'> = {
      uid: '0b7c', tenant: 'default', kind: 'Server', namespace: 'default', name: 'web-1', labels: { team: 'shop' }, annotations: {},
      spec: { provider: 'sandbox', region: 'eu-1', size: 'small' }, generation: 1, resourceVersion: 1, specVersion: 1, statusVersion: 1, source: 'api',
      createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z', deletionTimestamp: null,
      status: { phase: 'running', conditions: [], observedGeneration: 1 },
    };
    const want = desiredFromManifest(manifest);
    expect(want).toEqual({ kind: 'Server', namespace: 'default', name: 'web-1', labels: { team: 'shop' }, annotations: {}, spec: manifest.spec });
    const have = recordedFromStored(stored);
    expect(have).toMatchObject({ uid: '0b7c', deleting: false, source: 'api' });
    expect(recordedFromStored({ ...stored, deletionTimestamp: '2024-01-02T00:00:00Z' }).deleting).toBe(true);
    expect(planChanges([want], [have]).changes.map((c) => c.action)).toEqual(['noop']);
  });
});

describe('planChanges: scale', () => {
  it('plans 10,000 desired against 10,000 recorded resources (speed is measured in bench/, not here)', () => {
    const want: PlanDesired[] = [];
    const have: PlanRecorded[] = [];
    for (let i = 0; i < 10_000; i++) {
      want.push(app(`app-${i}`, { port: i % 7 === 0 ? 9090 : 8080 }));
      if (i % 10 !== 0) have.push(recorded(app(`app-${i}`, { port: 8080 })));
    }
    for (let i = 0; i < 1_000; i++) have.push(recorded(server(`gone-${i}`)));
    const plan = planChanges(want, have);
    expect(plan.changes).toHaveLength(11_000);
    expect(plan.summary).toEqual({ create: 1_000, import: 0, update: 1_286, replace: 0, delete: 1_000, noop: 7_714 });
  });
});
