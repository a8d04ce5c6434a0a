/**
 * @module `/providers`: vendor accounts with credentials stored encrypted (never shown again,
 * only a hint), their test, regions and sizes, and the list of vendors cairn can drive.
 */
import { Router } from 'express';
import { vendors } from '../../drivers/registry.js';
import { ValidationError } from '../../model/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { allowed } from '../authentication.js';
import { checkHostAccess } from '../host-access-check.js';
import type { ApiDeps } from '../deps.js';
import { ListCache, listKey } from '../list-cache.js';
import { listBody, pageRequest } from '../pagination.js';
import type { ProviderCatalogs } from '../provider-catalog.js';
import { ResourceLookup } from '../records/lookup.js';
import { checkManifest } from '../records/manifest-check.js';
import {
  checkCredentials, credentialsName, hasCredentials, providerManifest, providerRecord, updatedProviderManifest,
  type ProviderCreateBody, type ProviderUpdateBody,
} from '../records/provider-record.js';
import { validateBody } from '../request-validation.js';
import { pathId, sendRecord, setLocation } from '../respond.js';
import { expectedVersion } from '../versioning.js';
import { recordCredentialTest } from '../provider-test-record.js';

function vendorOf(id: string): NonNullable<ReturnType<typeof vendors.get>> {
  const vendor = vendors.get(id);
  if (!vendor) {
    const message = `unknown vendor "${id}" (vendors: ${[...vendors.keys()].sort().join(', ')})`;
    throw new ValidationError(`vendor: ${message}`, [{ pointer: '/vendor', message }]);
  }
  return vendor;
}

export function providerRoutes(deps: ApiDeps, catalogs: ProviderCatalogs): Router {
  const router = Router();
  const lists = new ListCache();
  const { store } = deps;

  router.get('/providers/vendors', (_req, res) => {
    allowed(res, 'read');
    const items = [...vendors.values()].map((v) => ({
      id: v.id,
      description: v.description,
      credential_fields: v.credentialFields.map((f) => ({ name: f.name, description: f.description, required: f.required })),
      managed_databases: v.managedDatabaseEngines ?? [],
    }));
    res.json({ items, next_cursor: null });
  });

  router.get('/providers', (req, res) => {
    const principal = allowed(res, 'read');
    const request = pageRequest(req);
    const body = lists.page(listKey(principal.tenant, 'Provider', request), store.resources.revision(), () => {
      const page = store.resources.page({ tenant: principal.tenant, kind: 'Provider' }, request);
      return listBody(page, (r) => providerRecord(r as StoredResource<'Provider'>, store.secrets));
    });
    res.type('json').send(body);
  });

  router.post('/providers', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<ProviderCreateBody>('post', '/providers', req.body);
    checkCredentials(body.credentials ?? {}, vendorOf(body.vendor).credentialFields, body.vendor);
    const manifest = checkManifest(providerManifest(body));
    checkHostAccess(store, principal, [manifest]);
    const created = store.transaction(() => {
      const made = store.resources.create(principal.tenant, 'api', manifest) as StoredResource<'Provider'>;
      if (hasCredentials(body)) {
        store.secrets.put(principal.tenant, 'provider-credentials', credentialsName(body.name), JSON.stringify(body.credentials));
        wakeProvidersUsing(deps, principal.tenant, credentialsName(body.name));
      }
      return made;
    });
    deps.afterWrite();
    setLocation(req, res, 'providers', created.uid);
    sendRecord(res, 201, created.specVersion, providerRecord(created, store.secrets));
  });

  router.get('/providers/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const provider = new ResourceLookup(store, principal.tenant).byId('Provider', pathId(req));
    sendRecord(res, 200, provider.specVersion, providerRecord(provider, store.secrets));
  });

  const update = (template: string) => (req: import('express').Request, res: import('express').Response): void => {
    const principal = allowed(res, template.endsWith('/rotate') ? 'read_credentials' : 'write');
    const current = new ResourceLookup(store, principal.tenant).byId('Provider', pathId(req));
    const body = validateBody<ProviderUpdateBody>(req.method.toLowerCase(), template, req.body);
    if (body.credentials) checkCredentials(body.credentials, vendorOf(current.spec.vendor).credentialFields, current.spec.vendor);
    const manifest = checkManifest(updatedProviderManifest(current, body, body.credentials !== undefined));
    checkHostAccess(store, principal, [manifest]);
    const updated = store.transaction(() => {
      const changed = store.resources.modify(current.uid, 'api', () => manifest, expectedVersion(req, current)) as StoredResource<'Provider'>;
      if (body.credentials) {
        store.secrets.put(principal.tenant, 'provider-credentials', credentialsName(current.name), JSON.stringify(body.credentials));
        wakeProvidersUsing(deps, principal.tenant, credentialsName(current.name));
      }
      return changed;
    });
    deps.afterWrite();
    sendRecord(res, 200, updated.specVersion, providerRecord(updated, store.secrets));
  };
  router.put('/providers/:id', update('/providers/{id}'));
  router.post('/providers/:id/credentials/rotate', update('/providers/{id}/credentials/rotate'));

  router.delete('/providers/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const current = new ResourceLookup(store, principal.tenant).byId('Provider', pathId(req));
    const deleting = store.resources.requestDeletionOf(current.uid, 'api', expectedVersion(req, current)) as StoredResource<'Provider'>;
    deps.afterWrite();
    sendRecord(res, 202, deleting.specVersion, providerRecord(deleting, store.secrets));
  });

  router.post('/providers/:id/test', async (req, res) => {
    const principal = allowed(res, 'write');
    const provider = new ResourceLookup(store, principal.tenant).byId('Provider', pathId(req));
    const test = await deps.drivers.credentialTestFor(provider);
    const testedAt = new Date().toISOString();
    recordCredentialTest(deps.store, provider, test, testedAt);
    res.json({ ok: test.ok, message: test.message, tested_at: testedAt });
  });

  router.get('/providers/:id/regions', async (req, res) => {
    const principal = allowed(res, 'read');
    const provider = new ResourceLookup(store, principal.tenant).byId('Provider', pathId(req));
    const { regions } = await catalogs.catalog(provider);
    res.json({ items: regions.map((r) => ({ slug: r.slug, name: r.name, available: r.available })), next_cursor: null });
  });

  router.get('/providers/:id/sizes', async (req, res) => {
    const principal = allowed(res, 'read');
    const provider = new ResourceLookup(store, principal.tenant).byId('Provider', pathId(req));
    const { sizes } = await catalogs.catalog(provider);
    res.json({
      items: sizes.map((s) => ({ slug: s.slug, vcpus: s.vcpus, memory_mb: s.memoryMb, disk_gb: s.diskGb, price_monthly: s.priceMonthly, regions: s.regions })),
      next_cursor: null,
    });
  });

  return router;
}

/** Providers (from manifests too) naming these stored credentials look again: they may have stalled without them. */
function wakeProvidersUsing(deps: ApiDeps, tenant: string, credentials: string): void {
  for (const provider of deps.store.resources.list({ tenant, kind: 'Provider' })) {
    if (provider.kind === 'Provider' && provider.spec.credentialsRef?.secret === credentials) deps.store.resources.touch(provider.uid);
  }
}
