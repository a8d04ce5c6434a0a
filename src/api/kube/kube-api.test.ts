/**
 * @module The Kubernetes endpoint over real HTTP, in-process: discovery, Status errors,
 * create/get/list/update/patch/delete with resourceVersion conflicts, Tables, selectors and
 * paging, the watch protocol (ADDED/MODIFIED/DELETED, resume, bookmarks, 410 Gone), the status
 * subresource, OpenAPI v3, events, tenants, and resources shared with the REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKubeFixture, readWatch, type KubeFixture } from './kube-fixture.js';

const NS = '/apis/cairn.dev/v1/namespaces/default';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

function server(name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name, ...(labels ? { labels } : {}) }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small', ...spec } };
}

let f: KubeFixture;

beforeAll(async () => {
  f = await openKubeFixture({ tombstonesKept: 3 });
});

afterAll(async () => {
  await f.close();
});

describe('discovery and documents', () => {
  it('lists the group and its resources, legacy and aggregated', async () => {
    const groups = await f.call('GET', '/apis');
    expect(groups.body).toMatchObject({ kind: 'APIGroupList', groups: [{ name: 'cairn.dev', preferredVersion: { groupVersion: 'cairn.dev/v1' } }] });
    const aggregated = await f.call('GET', '/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    expect(aggregated.contentType).toContain('as=APIGroupDiscoveryList');
    expect(JSON.stringify(aggregated.body)).toContain('"resource":"servers"');
    const resources = await f.call('GET', '/apis/cairn.dev/v1');
    const names = (resources.body.resources as Array<{ name: string; shortNames?: string[] }>).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['providers', 'sshkeys', 'servers', 'databases', 'apps', 'servers/status', 'sshkeys/status']));
  });

  it('refuses a missing or wrong token with an Unauthorized Status; /version is open', async () => {
    for (const token of [null, 'not-a-token']) {
      const answer = await f.call('GET', `${NS}/servers`, { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    }
    expect((await f.call('GET', '/version', { token: null })).body).toMatchObject({ major: '1' });
  });

  it('publishes OpenAPI v3 that kubectl explain reads', async () => {
    const index = await f.call('GET', '/openapi/v3');
    const url = (index.body.paths as Record<string, { serverRelativeURL: string }>)['apis/cairn.dev/v1']?.serverRelativeURL ?? '';
    const doc = await f.call('GET', url);
    const schemas = (doc.body.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    expect(schemas['dev.cairn.v1.Server']?.['x-kubernetes-group-version-kind']).toEqual([{ group: 'cairn.dev', kind: 'Server', version: 'v1' }]);
    expect(JSON.stringify(schemas['dev.cairn.v1.Server'])).toContain('The vendor\'s size slug');
  });
});

describe('reads and writes', () => {
  it('creates, refuses a second create and bad objects with Status errors naming the fields', async () => {
    const created = await f.call('POST', `${NS}/servers`, { body: server('web-1', {}, { team: 'shop' }) });
    expect(created.status).toBe(201);
    expect(created.body.metadata).toMatchObject({ name: 'web-1', namespace: 'default', generation: 1, finalizers: ['cairn.dev/finalizer'] });
    const again = await f.call('POST', `${NS}/servers`, { body: server('web-1') });
    expect(again.body).toMatchObject({ kind: 'Status', reason: 'AlreadyExists', code: 409, message: 'servers.cairn.dev "web-1" already exists' });
    const bad = await f.call('POST', `${NS}/servers`, { body: server('web-bad', { size: 3, colour: 'red' }) });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ reason: 'Invalid', details: { name: 'web-bad', kind: 'Server' } });
    const fields = ((bad.body.details as { causes: Array<{ field: string }> }).causes).map((c) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.size', 'spec.colour']));
    expect(f.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-bad' })).toBeUndefined();
    const missing = await f.call('GET', `${NS}/servers/nope`);
    expect(missing.body).toMatchObject({ reason: 'NotFound', code: 404, message: 'servers.cairn.dev "nope" not found' });
  });

  it('updates only at the current resourceVersion; a stale one is a 409 Conflict', async () => {
    const current = (await f.call('GET', `${NS}/servers/web-1`)).body as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    const stale = { ...current, metadata: { ...current.metadata, resourceVersion: String(Number(current.metadata.resourceVersion) - 1) }, spec: { ...current.spec, size: 'large' } };
    const conflict = await f.call('PUT', `${NS}/servers/web-1`, { body: stale });
    expect(conflict.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    const renamed = await f.call('PUT', `${NS}/servers/web-1`, { body: { ...current, metadata: { ...current.metadata, name: 'web-9' } } });
    expect(renamed.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'the name of the object (web-9) does not match the name on the URL (web-1)' });
    const appliedElsewhere = await f.call('PATCH', `${NS}/servers/web-8?fieldManager=kubectl`, { body: 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-9\nspec:\n  provider: sandbox\n  region: us-1\n  size: small\n', contentType: 'application/apply-patch+yaml' });
    expect(appliedElsewhere.body).toMatchObject({ reason: 'BadRequest', code: 400, message: 'the name of the object (web-9) does not match the name on the URL (web-8)' });
    const ok = await f.call('PUT', `${NS}/servers/web-1`, { body: { ...current, spec: { ...current.spec, size: 'large' } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ metadata: { generation: 2 }, spec: { size: 'large' } });
    expect(Number((ok.body.metadata as { resourceVersion: string }).resourceVersion)).toBe(f.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' })?.resourceVersion);
  });

  it('patches with merge, JSON and strategic patches, and server-side apply creates then merges', async () => {
    expect((await f.call('PATCH', `${NS}/servers/web-1`, { body: { spec: { size: 'medium' } }, contentType: 'application/merge-patch+json' })).body).toMatchObject({ spec: { size: 'medium' } });
    expect((await f.call('PATCH', `${NS}/servers/web-1`, { body: [{ op: 'replace', path: '/spec/size', value: 'small' }], contentType: 'application/json-patch+json' })).body).toMatchObject({ spec: { size: 'small' } });
    expect((await f.call('PATCH', `${NS}/servers/web-1`, { body: { metadata: { labels: { tier: 'web' } } }, contentType: 'application/strategic-merge-patch+json' })).body).toMatchObject({ metadata: { labels: { team: 'shop', tier: 'web' } } });
    const badOp = await f.call('PATCH', `${NS}/servers/web-1`, { body: [{ op: 'test', path: '/spec/size', value: 'huge' }], contentType: 'application/json-patch+json' });
    expect(badOp.body).toMatchObject({ kind: 'Status', code: 422 });
    const wrongType = await f.call('PATCH', `${NS}/servers/web-1`, { body: '{}', contentType: 'text/plain' });
    expect(wrongType.body).toMatchObject({ reason: 'UnsupportedMediaType', code: 415 });
    const yaml = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-2\nspec:\n  provider: sandbox\n  region: us-1\n  size: small\n';
    const applied = await f.call('PATCH', `${NS}/servers/web-2?fieldManager=kubectl`, { body: yaml, contentType: 'application/apply-patch+yaml' });
    expect(applied.status).toBe(201);
    const reapplied = await f.call('PATCH', `${NS}/servers/web-2?fieldManager=kubectl`, { body: yaml.replace('size: small', 'size: large'), contentType: 'application/apply-patch+yaml' });
    expect(reapplied.body).toMatchObject({ spec: { size: 'large', region: 'us-1' }, metadata: { generation: 2 } });
    await f.call('PATCH', `${NS}/servers/web-2`, { body: { spec: { size: 'medium' } }, contentType: 'application/merge-patch+json' });
    const conflict = await f.call('PATCH', `${NS}/servers/web-2?fieldManager=kubectl`, { body: yaml, contentType: 'application/apply-patch+yaml' });
    expect(conflict.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(conflict.body.message).toContain('Apply failed with 1 conflict: conflict with another field manager using cairn.dev/v1: .spec.size');
    const forced = await f.call('PATCH', `${NS}/servers/web-2?fieldManager=kubectl&force=true`, { body: yaml, contentType: 'application/apply-patch+yaml' });
    expect(forced.body).toMatchObject({ spec: { size: 'small' } });
  });

  it('answers a dry run without writing', async () => {
    const before = f.store.resources.revision();
    const dry = await f.call('PATCH', `${NS}/servers/web-1?dryRun=All`, { body: { spec: { size: 'large' } }, contentType: 'application/merge-patch+json' });
    expect(dry.body).toMatchObject({ spec: { size: 'large' } });
    const dryCreate = await f.call('POST', `${NS}/servers?dryRun=All`, { body: server('web-dry') });
    expect(dryCreate.status).toBe(201);
    // A dry run is refused as the write would be: a stale resourceVersion is a 409 Conflict.
    const current = (await f.call('GET', `${NS}/servers/web-1`)).body as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    const stale = { ...current, metadata: { ...current.metadata, resourceVersion: String(Number(current.metadata.resourceVersion) - 1) }, spec: { ...current.spec, size: 'large' } };
    expect((await f.call('PUT', `${NS}/servers/web-1?dryRun=All`, { body: stale })).body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(f.store.resources.revision()).toBe(before);
    // ... and so is a change to a resource another source owns.
    f.store.resources.apply('default', 'git:infra', [{ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'dry-git', namespace: 'dry' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } }]);
    const owned = await f.call('PATCH', '/apis/cairn.dev/v1/namespaces/dry/servers/dry-git?dryRun=All', { body: { spec: { size: 'large' } }, contentType: 'application/merge-patch+json' });
    expect(owned.body).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(owned.body.message).toContain('owned by git:infra');
  });

  it('serves the status subresource read-only', async () => {
    expect((await f.call('GET', `${NS}/servers/web-1/status`)).body).toMatchObject({ kind: 'Server', status: { phase: 'pending' } });
    const write = await f.call('PUT', `${NS}/servers/web-1/status`, { body: server('web-1') });
    expect(write.body).toMatchObject({ reason: 'Forbidden', code: 403 });
  });

  it('lists as objects or Tables, with selectors and limit/continue', async () => {
    for (const name of ['a-1', 'a-2', 'a-3']) await f.call('POST', `${NS}/servers`, { body: server(name, {}, { batch: 'a' }) });
    const table = await f.call('GET', `${NS}/servers?labelSelector=batch%3Da`, { accept: TABLE });
    expect(table.body.kind).toBe('Table');
    expect((table.body.columnDefinitions as Array<{ name: string }>).map((c) => c.name)).toEqual(['Name', 'Status', 'Ready', 'Region', 'Size', 'IPv4', 'Age']);
    expect((table.body.rows as Array<{ cells: unknown[] }>).map((r) => r.cells.slice(0, 5))).toEqual([
      ['a-1', 'pending', '', 'eu-1', 'small'], ['a-2', 'pending', '', 'eu-1', 'small'], ['a-3', 'pending', '', 'eu-1', 'small'],
    ]);
    const names: string[] = [];
    let token = '';
    for (let page = 0; page < 10; page += 1) {
      const answer = await f.call('GET', `${NS}/servers?limit=2${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      names.push(...(answer.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name));
      token = (answer.body.metadata as { continue?: string }).continue ?? '';
      if (!token) break;
    }
    expect(names).toEqual(['a-1', 'a-2', 'a-3', 'web-1', 'web-2']);
    const one = await f.call('GET', `/apis/cairn.dev/v1/servers?fieldSelector=metadata.name%3Dweb-2`);
    expect((one.body.items as unknown[]).length).toBe(1);
    const allBut = await f.call('GET', `${NS}/servers?fieldSelector=metadata.name!%3Dweb-2,metadata.namespace%3Ddefault`);
    expect((allBut.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['a-1', 'a-2', 'a-3', 'web-1']);
    const notIn = await f.call('GET', `${NS}/servers?labelSelector=batch%20notin%20(a)`);
    expect((notIn.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['web-1', 'web-2']);
    const badSelector = await f.call('GET', `${NS}/servers?fieldSelector=spec.size%3Dsmall`);
    expect(badSelector.body).toMatchObject({ reason: 'BadRequest', code: 400 });
  });

  it('deletes through the finalizer: the object stays, marked, until cairn removes it', async () => {
    const deleted = await f.call('DELETE', `${NS}/servers/a-3`);
    expect(deleted.status).toBe(200);
    expect((deleted.body.metadata as { deletionTimestamp?: string }).deletionTimestamp).toBeDefined();
    expect((await f.call('GET', `${NS}/servers/a-3`)).status).toBe(200);
    const found = f.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'a-3' });
    f.store.resources.remove(found?.uid ?? '');
    expect((await f.call('GET', `${NS}/servers/a-3`)).status).toBe(404);
  });
});

describe('watch', () => {
  it('resumes from a resourceVersion: what was added, changed and removed since, in order; bookmarks when allowed', async () => {
    const list = await f.call('GET', `${NS}/servers`);
    const from = (list.body.metadata as { resourceVersion: string }).resourceVersion;
    await f.call('POST', `${NS}/servers`, { body: server('w-1') });
    await f.call('POST', `${NS}/servers`, { body: server('w-2') });
    await f.call('PATCH', `${NS}/servers/web-1`, { body: { spec: { size: 'large' } }, contentType: 'application/merge-patch+json' });
    await f.call('DELETE', `${NS}/servers/w-1`);
    f.store.resources.remove(f.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'w-1' })?.uid ?? '');
    const events = await readWatch(`${f.base}${NS}/servers?watch=1&resourceVersion=${from}&allowWatchBookmarks=true`, f.token, (e) => e.some((x) => x.type === 'BOOKMARK'));
    const seen = events.filter((e) => e.type !== 'BOOKMARK').map((e) => [e.type, (e.object.metadata as { name: string }).name]);
    // Changes between two looks coalesce per object (its latest state), as a watch cache may.
    expect(seen).toEqual([['ADDED', 'w-2'], ['MODIFIED', 'web-1'], ['DELETED', 'w-1']]);
    const bookmark = events.find((e) => e.type === 'BOOKMARK');
    expect(Number((bookmark?.object.metadata as { resourceVersion: string }).resourceVersion)).toBeGreaterThanOrEqual(Number(from));
  });

  it('streams changes made after it started, as one-row Tables when asked', async () => {
    const from = (await f.call('GET', `${NS}/servers`)).body.metadata as { resourceVersion: string };
    const watching = readWatch(`${f.base}${NS}/servers?watch=true&resourceVersion=${from.resourceVersion}`, f.token, (e) => e.length >= 1, { accept: TABLE });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await f.call('PATCH', `${NS}/servers/web-2`, { body: { spec: { size: 'medium' } }, contentType: 'application/merge-patch+json' });
    const [event] = await watching;
    expect(event?.type).toBe('MODIFIED');
    expect(event?.object).toMatchObject({ kind: 'Table', rows: [{ cells: ['web-2', 'pending', '', 'us-1', 'medium', '', expect.any(String)] }] });
  });

  it('replays current objects as ADDED without a resourceVersion, and says 410 Expired for one older than the tombstones kept', async () => {
    const replay = await readWatch(`${f.base}${NS}/servers?watch=1&labelSelector=batch%3Da`, f.token, (e) => e.length >= 2);
    expect(replay.map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([['ADDED', 'a-1'], ['ADDED', 'a-2']]);
    // Only 3 tombstones are kept in this fixture: removing more prunes the oldest.
    for (const name of ['t-1', 't-2', 't-3', 't-4']) {
      await f.call('POST', `${NS}/servers`, { body: server(name) });
      f.store.resources.remove(f.store.resources.find('default', { kind: 'Server', namespace: 'default', name })?.uid ?? '');
    }
    const gone = await readWatch(`${f.base}${NS}/servers?watch=1&resourceVersion=1`, f.token, (e) => e.length >= 1);
    expect(gone[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', reason: 'Expired', code: 410 } });
  });
});

describe('one set of resources', () => {
  it('lists what the REST API created, and refuses changes to what another source owns, naming it', async () => {
    const yaml = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n';
    const rest = await f.call('POST', '/api/v1/manifests', { body: yaml, contentType: 'application/yaml' });
    expect(rest.status).toBe(200);
    const providers = await f.call('GET', `${NS}/providers`);
    expect((providers.body.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name)).toEqual(['sandbox']);
    f.store.resources.apply('default', 'git:infra', [{ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'from-git', namespace: 'default' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } }]);
    const patch = await f.call('PATCH', `${NS}/servers/from-git`, { body: { spec: { size: 'large' } }, contentType: 'application/merge-patch+json' });
    expect(patch.body).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(patch.body.message).toContain('owned by git:infra');
  });

  it('keeps tenants apart and holds viewers to reading', async () => {
    const other = await f.login('other@example.com', 'owner', 'acme');
    expect(((await f.call('GET', `${NS}/servers`, { token: other })).body.items as unknown[]).length).toBe(0);
    const viewer = await f.login('viewer@example.com', 'viewer');
    expect((await f.call('GET', `${NS}/servers/web-1`, { token: viewer })).status).toBe(200);
    expect((await f.call('DELETE', `${NS}/servers/web-1`, { token: viewer })).body).toMatchObject({ reason: 'Forbidden', code: 403 });
  });

  it('refuses a local Provider to a tenant the operator did not allow, as a Forbidden Status naming the setting', async () => {
    const other = await f.login('host@acme.example.com', 'owner', 'acme');
    const local = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'here' }, spec: { vendor: 'local' } };
    const answer = await f.call('POST', `${NS}/providers`, { token: other, body: local });
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(String(answer.body.message)).toContain('CAIRN_LOCAL_VENDOR_TENANTS');
    expect(f.store.resources.find(f.store.tenants.findByName('acme')?.id ?? '', { kind: 'Provider', namespace: 'default', name: 'here' })).toBeUndefined();
  });

  it('shows the reconciler\'s events as core/v1 Events for kubectl describe', async () => {
    const web1 = f.store.resources.find('default', { kind: 'Server', namespace: 'default', name: 'web-1' });
    f.store.events.append({ tenant: 'default', uid: web1?.uid ?? '', kind: 'Server', namespace: 'default', name: 'web-1', type: 'Normal', reason: 'Created', message: 'created server x' });
    const events = await f.call('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb-1,involvedObject.uid%3D${web1?.uid ?? ''}`);
    expect(events.body).toMatchObject({ kind: 'EventList', items: [{ reason: 'Created', message: 'created server x', involvedObject: { kind: 'Server', name: 'web-1' } }] });
    const others = await f.call('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb-1,reason!%3DCreated`);
    expect(others.body.items).toEqual([]);
    const unsupported = await f.call('GET', `/api/v1/namespaces/default/events?fieldSelector=message%3Dx`);
    expect(unsupported.body).toMatchObject({ reason: 'BadRequest', code: 400 });
  });
});
