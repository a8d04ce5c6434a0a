/**
 * @module `/servers`: create, list, read, change and delete servers, power actions, metrics.
 * Writes change desired state (source `api`) and answer 202; the reconciler converges.
 */
import { Router } from 'express';
import { ConflictError } from '../../model/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { ListCache, listKey } from '../list-cache.js';
import { listBody, pageRequest } from '../pagination.js';
import type { ProviderCatalogs } from '../provider-catalog.js';
import { replacingChanges } from '../records/common.js';
import { ResourceLookup } from '../records/lookup.js';
import { checkManifest } from '../records/manifest-check.js';
import { checkServerFieldsForVendor, serverManifest, serverRecord, updatedServerManifest, type ServerCreateBody, type ServerRecord, type ServerUpdateBody } from '../records/server-record.js';
import { SSH_VENDOR } from '../../model/server-vendor-fields.js';
import { validateBody } from '../request-validation.js';
import { pathId, sendRecord, setLocation } from '../respond.js';
import { expectedVersion } from '../versioning.js';
import type { ActionType } from '../../store/records.js';

export function serverRoutes(deps: ApiDeps, catalogs: ProviderCatalogs): Router {
  const router = Router();
  const lists = new ListCache();
  const { store } = deps;

  function lookupFor(tenant: string): ResourceLookup {
    return new ResourceLookup(store, tenant);
  }

  router.get('/servers', (req, res) => {
    const principal = allowed(res, 'read');
    const request = pageRequest(req);
    const body = lists.page(listKey(principal.tenant, 'Server', request), store.resources.revision(), () => {
      const lookup = lookupFor(principal.tenant);
      const page = store.resources.page({ tenant: principal.tenant, kind: 'Server' }, request);
      return listBody(page, (r) => serverRecord(r as StoredResource<'Server'>, lookup));
    });
    res.type('json').send(body);
  });

  router.post('/servers', async (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<ServerCreateBody>('post', '/servers', req.body);
    const lookup = lookupFor(principal.tenant);
    const provider = lookup.referenced('Provider', body.provider_id, '/provider_id');
    const sshKeyNames = (body.ssh_key_ids ?? []).map((id, index) => lookup.referenced('SSHKey', id, `/ssh_key_ids/${index}`).name);
    const manifest = checkManifest(serverManifest(body, provider.name, sshKeyNames));
    checkServerFieldsForVendor(manifest.spec, provider);
    // A server of the ssh vendor is an existing host: it has no region or size to check.
    if (provider.spec.vendor !== SSH_VENDOR) await catalogs.check(provider, body.region, body.size);
    const created = store.resources.create(principal.tenant, 'api', manifest) as StoredResource<'Server'>;
    deps.afterWrite();
    setLocation(req, res, 'servers', created.uid);
    sendRecord(res, 202, created.specVersion, serverRecord(created, lookup));
  });

  router.get('/servers/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = lookupFor(principal.tenant);
    const server = lookup.byId('Server', pathId(req));
    sendRecord(res, 200, server.specVersion, serverRecord(server, lookup));
  });

  router.put('/servers/:id', async (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<ServerUpdateBody>('put', '/servers/{id}', req.body);
    const lookup = lookupFor(principal.tenant);
    const current = lookup.byId('Server', pathId(req));
    const providerId = lookup.idOf('Provider', current.spec.provider, current.namespace);
    const provider = providerId ? lookup.byId('Provider', providerId) : undefined;
    const manifest = checkManifest(updatedServerManifest(current, body));
    if (provider) checkServerFieldsForVendor(manifest.spec, provider);
    if (provider && body.size !== undefined && body.size !== current.spec.size) await catalogs.check(provider, undefined, body.size);
    const replacing = replacingChanges('Server', current.spec, manifest.spec);
    const updated = store.resources.modify(current.uid, 'api', () => manifest, expectedVersion(req, current)) as StoredResource<'Server'>;
    deps.afterWrite();
    sendRecord(res, 202, updated.specVersion, withReplacementNotice(serverRecord(updated, lookup), replacing));
  });

  router.delete('/servers/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const lookup = lookupFor(principal.tenant);
    const current = lookup.byId('Server', pathId(req));
    const deleting = store.resources.requestDeletionOf(current.uid, 'api', expectedVersion(req, current)) as StoredResource<'Server'>;
    deps.afterWrite();
    sendRecord(res, 202, deleting.specVersion, serverRecord(deleting, lookup));
  });

  /** start and stop change the desired power state; reboot is a one-off action. */
  const power = (type: ActionType, state?: 'running' | 'stopped') =>
    (req: import('express').Request, res: import('express').Response): void => {
      const principal = allowed(res, 'write');
      const lookup = lookupFor(principal.tenant);
      const current = lookup.byId('Server', pathId(req));
      if (current.deletionTimestamp !== null) throw new ConflictError(`server ${current.name} is being deleted`);
      const { server, action } = store.transaction(() => {
        const server = state === undefined || (current.spec.state ?? 'running') === state
          ? current
          : (store.resources.modify(current.uid, 'api', (r) => updatedServerManifest(r as StoredResource<'Server'>, { state })) as StoredResource<'Server'>);
        return { server, action: store.actions.request(principal.tenant, current.uid, type, {}) };
      });
      deps.afterWrite();
      res.status(202).json({ id: server.uid, status: actionStatus(type, server), operation_id: action.id });
    };

  router.post('/servers/:id/start', power('start', 'running'));
  router.post('/servers/:id/stop', power('stop', 'stopped'));
  router.post('/servers/:id/reboot', power('reboot'));

  router.get('/servers/:id/metrics', async (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = lookupFor(principal.tenant);
    const server = lookup.byId('Server', pathId(req));
    const externalId = server.status.externalId;
    if (!externalId) throw new ConflictError(`server ${server.name} does not exist at its provider yet (status ${server.status.phase}); metrics follow once it does`);
    const provider = lookup.byId('Provider', lookup.idOf('Provider', server.spec.provider, server.namespace) ?? '');
    const metrics = await (await deps.drivers.cloudFor(provider)).metrics(externalId);
    res.json({
      simulated: metrics.simulated,
      cpu_percent: metrics.cpuPercent,
      memory_percent: metrics.memoryPercent,
      disk_percent: metrics.diskPercent,
      sampled_at: metrics.sampledAt,
      series: metrics.series.map((p) => ({ ts: p.ts, cpu_percent: p.cpuPercent, memory_percent: p.memoryPercent, disk_percent: p.diskPercent })),
    });
  });

  return router;
}

/** The status a power action moves the server to; a server already there keeps its status. */
function actionStatus(type: ActionType, server: StoredResource<'Server'>): string {
  const phase = server.status.phase;
  if (type === 'reboot') return 'rebooting';
  if (type === 'stop') return phase === 'stopped' ? 'stopped' : 'stopping';
  return phase === 'running' ? 'running' : 'starting';
}

/** A PUT that replaces the server says so in the Ready condition it answers with. */
function withReplacementNotice(record: ServerRecord, replacing: string[]): ServerRecord {
  if (replacing.length === 0) return record;
  const notice = {
    type: 'Ready',
    status: 'False',
    reason: 'Replacing',
    message: `${replacing.join('; ')}: the server will be replaced (a new one is created, then the old one deleted)`,
    last_transition_time: new Date().toISOString(),
  };
  return { ...record, conditions: [notice, ...record.conditions.filter((c) => c.type !== 'Ready')] };
}
