/**
 * @module Import and adoption (issue #22, item 8): a server made at the vendor outside cairn,
 * named by `cairn.dev/external-id` on a manifest, is observed and adopted, never created again;
 * the plan says `import`; the manifest's in-place changes (size) are applied to it; it is left at
 * the vendor when its manifest is deleted unless `deletionPolicy: Delete` says otherwise; an id the
 * vendor does not know, or a region that differs, is an error that names it and creates nothing.
 * A database made on a cairn server is adopted the same way (its engine checked, its storage grown).
 */
import { describe, expect, it } from 'vitest';
import type { AnyManifest } from '../src/model/resource.js';
import { planForManifests } from '../src/store/plan-for-manifests.js';
import { condition, databaseManifest, isReady, providerManifest, serverManifest, useReconcileHarness, type Harness } from './support/reconcile-harness.js';
import { inventory } from './support/vendor-inventory.js';

const harness = useReconcileHarness();

/** A server made through the sandbox's own API, as someone would by hand before cairn. */
async function madeOutOfBand(h: Harness, name: string, fields: Record<string, string> = {}): Promise<string> {
  const answer = await h.vendor<{ server: { id: string } }>('POST', '/v1/servers', { name, region: 'eu-1', size: 'small', image: 'debian-12', ...fields });
  expect(answer.status).toBe(201);
  return answer.body.server.id;
}

const imported = (name: string, id: string, spec: Record<string, unknown> = {}): AnyManifest => {
  const manifest = serverManifest(name, spec);
  return { ...manifest, metadata: { ...manifest.metadata, annotations: { 'cairn.dev/external-id': id } } };
};

const live = async (h: Harness, name: string) => (await inventory(h.cloud.url)).servers.filter((s) => s.name === name && s.status !== 'deleted' && s.status !== 'deleting');
const reasons = (h: Harness, name: string): string[] => h.store.events.list({ tenant: 'default', uid: h.get('Server', name).uid, limit: 100 }).map((e) => e.reason);

describe('a server imported by cairn.dev/external-id', () => {
  it('is planned as an import, adopted (one server at the vendor, running under its id), and resized in place', async () => {
    const h = harness();
    const id = await madeOutOfBand(h, 'legacy-1');
    h.apply(providerManifest(h.cloud.url));
    const manifest = imported('legacy-1', id, { size: 'medium' });

    const plan = planForManifests(h.store, [manifest], { prune: false });
    expect(plan.changes.map((c) => [c.action, c.name, c.externalId])).toEqual([['import', 'legacy-1', id]]);

    h.apply(manifest);
    h.controller.start();
    await h.until('legacy-1 ready', () => isReady(h.get('Server', 'legacy-1')) && h.get('Server', 'legacy-1').status.phase === 'running');
    const r = h.get('Server', 'legacy-1');
    expect(r.status.externalId).toBe(id);
    expect(r.status.details?.imported).toBe(true);
    const servers = await live(h, 'legacy-1');
    expect(servers.map((s) => [s.id, s.size])).toEqual([[id, 'medium']]);
    expect(reasons(h, 'legacy-1')).toEqual(expect.arrayContaining(['Imported', 'Updated']));
    expect(reasons(h, 'legacy-1')).not.toContain('Created');
    expect(reasons(h, 'legacy-1')).not.toContain('DriftDetected');
  });

  it('is left at the vendor when its manifest is deleted (Orphan by default)', async () => {
    const h = harness();
    const id = await madeOutOfBand(h, 'legacy-2');
    h.apply(providerManifest(h.cloud.url), imported('legacy-2', id));
    h.controller.start();
    await h.until('legacy-2 ready', () => isReady(h.get('Server', 'legacy-2')));
    const uid = h.get('Server', 'legacy-2').uid;
    expect(h.get('Server', 'legacy-2').status.externalId).toBe(id);
    h.store.resources.requestDeletion('default', 'api', [{ kind: 'Server', namespace: 'default', name: 'legacy-2' }]);
    await h.until('legacy-2 gone from cairn', () => h.find('Server', 'legacy-2') === undefined);
    expect((await live(h, 'legacy-2')).map((s) => s.id)).toEqual([id]);
    expect(h.store.events.list({ tenant: 'default', uid, limit: 100 }).map((e) => e.reason)).toContain('Orphaned');
  });

  it('is deleted at the vendor with its manifest when deletionPolicy: Delete says so', async () => {
    const h = harness();
    const id = await madeOutOfBand(h, 'legacy-3');
    h.apply(providerManifest(h.cloud.url), imported('legacy-3', id, { deletionPolicy: 'Delete' }));
    h.controller.start();
    await h.until('legacy-3 ready', () => isReady(h.get('Server', 'legacy-3')));
    h.store.resources.requestDeletion('default', 'api', [{ kind: 'Server', namespace: 'default', name: 'legacy-3' }]);
    await h.until('legacy-3 gone from cairn', () => h.find('Server', 'legacy-3') === undefined);
    expect(await live(h, 'legacy-3')).toEqual([]);
  });

  it('with an id the vendor does not know: error status naming the id and the provider, nothing created', async () => {
    const h = harness();
    const before = (await inventory(h.cloud.url)).servers.length;
    h.apply(providerManifest(h.cloud.url), imported('legacy-4', 'no-such-server'));
    h.controller.start();
    await h.until('legacy-4 in error', () => h.get('Server', 'legacy-4').status.phase === 'error');
    const ready = condition(h.get('Server', 'legacy-4'), 'Ready');
    expect(ready?.reason).toBe('ImportFailed');
    expect(ready?.message).toMatch(/no server with id no-such-server at sandbox \(Provider\/cloud\)/);
    // Several resync intervals later, still nothing made.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await inventory(h.cloud.url)).servers.length).toBe(before);
    expect(h.get('Server', 'legacy-4').status.externalId ?? null).toBeNull();
  });

  it('in another region than the manifest says: error naming spec.region, never replaced', async () => {
    const h = harness();
    const id = await madeOutOfBand(h, 'legacy-5', { region: 'us-1' });
    h.apply(providerManifest(h.cloud.url), imported('legacy-5', id));
    h.controller.start();
    await h.until('legacy-5 in error', () => h.get('Server', 'legacy-5').status.phase === 'error');
    expect(condition(h.get('Server', 'legacy-5'), 'Ready')?.message).toMatch(/spec\.region is "eu-1" but server .* is in "us-1"/);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await live(h, 'legacy-5')).map((s) => [s.id, s.region])).toEqual([[id, 'us-1']]);
    expect(h.get('Server', 'legacy-5').status.externalId ?? null).toBeNull();
  });

  it('moved to another region later is replaced like any other, not imported again by the id still annotated', async () => {
    const h = harness();
    const id = await madeOutOfBand(h, 'legacy-6');
    h.apply(providerManifest(h.cloud.url), imported('legacy-6', id, { deletionPolicy: 'Delete' }));
    h.controller.start();
    await h.until('legacy-6 ready', () => isReady(h.get('Server', 'legacy-6')));
    h.apply(imported('legacy-6', id, { deletionPolicy: 'Delete', region: 'us-1' }));
    await h.until('legacy-6 ready in us-1', () => isReady(h.get('Server', 'legacy-6')) && h.get('Server', 'legacy-6').status.externalId !== id, 20_000);
    expect((await live(h, 'legacy-6')).map((s) => s.region)).toEqual(['us-1']);
    expect(reasons(h, 'legacy-6')).not.toContain('ImportFailed');
    expect(h.get('Server', 'legacy-6').status.details?.imported).toBe(false);
  });
});

describe('a database imported by cairn.dev/external-id', () => {
  /** A server cairn runs, and a database made on it through the sandbox's own API. */
  async function databaseMadeOutOfBand(h: Harness, server: string, name: string): Promise<string> {
    h.apply(providerManifest(h.cloud.url), serverManifest(server));
    h.controller.start();
    await h.until(`${server} ready`, () => isReady(h.get('Server', server)));
    const answer = await h.vendor<{ database: { id: string } }>('POST', '/v1/databases', {
      name, server_id: h.get('Server', server).status.externalId, type: 'postgresql', version: '16', storage_gb: 10, password: 'made-by-hand-123',
    });
    expect(answer.status).toBe(201);
    return answer.body.database.id;
  }
  const liveDatabases = async (h: Harness, name: string) => (await inventory(h.cloud.url)).databases.filter((d) => d.name === name);

  it('is adopted on its server, its storage grown in place, and left at the vendor when deleted', async () => {
    const h = harness();
    const id = await databaseMadeOutOfBand(h, 'db-host-1', 'legacy-db');
    h.apply(databaseManifest('legacy-db', 'db-host-1', { storageGb: 20 }, { 'cairn.dev/external-id': id }));
    await h.until('legacy-db ready at 20 GB', () => isReady(h.get('Database', 'legacy-db')) && h.get('Database', 'legacy-db').status.externalId === id);
    const atVendor = await h.vendor<{ database: { storage_gb: number } }>('GET', `/v1/databases/${id}`);
    expect(atVendor.body.database.storage_gb).toBe(20);
    expect(await liveDatabases(h, 'legacy-db')).toHaveLength(1);
    const uid = h.get('Database', 'legacy-db').uid;
    expect(h.store.events.list({ tenant: 'default', uid, limit: 100 }).map((e) => e.reason)).toContain('Imported');

    h.store.resources.requestDeletion('default', 'api', [{ kind: 'Database', namespace: 'default', name: 'legacy-db' }]);
    await h.until('legacy-db gone from cairn', () => h.find('Database', 'legacy-db') === undefined);
    expect((await h.vendor('GET', `/v1/databases/${id}`)).status).toBe(200);
  });

  it('of another engine than the manifest says: error naming spec.type, nothing created', async () => {
    const h = harness();
    const id = await databaseMadeOutOfBand(h, 'db-host-2', 'legacy-db-2');
    h.apply(databaseManifest('legacy-db-2', 'db-host-2', { type: 'mongodb', storageGb: undefined, version: '7' }, { 'cairn.dev/external-id': id }));
    await h.until('legacy-db-2 stalled', () => condition(h.get('Database', 'legacy-db-2'), 'Ready')?.reason === 'ImportFailed');
    expect(condition(h.get('Database', 'legacy-db-2'), 'Ready')?.message).toMatch(/spec\.type is "mongodb" but database .* is "postgresql"/);
    expect(await liveDatabases(h, 'legacy-db-2')).toHaveLength(1);
  });
});
