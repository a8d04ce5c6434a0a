/**
 * @module `/apps`: create, list, read, change and delete apps; deploy (a numbered deployment,
 * optionally of another ref), stop and start; logs and deployment history.
 */
import { Router, type Request, type Response } from 'express';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../model/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { liveBuildLog } from '../app-build-log.js';
import { requestDeployment } from '../app-deploy.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { listBody, pageRequest, queryText } from '../pagination.js';
import { appManifest, appRecord, updatedAppManifest, type AppCreateBody, type AppRecord, type AppUpdateBody } from '../records/app-record.js';
import { ResourceLookup } from '../records/lookup.js';
import { checkManifest } from '../records/manifest-check.js';
import { deploymentRecord } from '../records/operation-record.js';
import { validateBody } from '../request-validation.js';
import { pathId, sendRecord, setLocation } from '../respond.js';
import { runtimeOf } from '../runtime-access.js';
import { expectedVersion } from '../versioning.js';
import type { ActionType } from '../../store/records.js';

const MAX_LOG_TAIL = 1000;

export function appRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;
  const lookupFor = (tenant: string): ResourceLookup => new ResourceLookup(store, tenant);

  function record(app: StoredResource<'App'>, lookup: ResourceLookup): AppRecord {
    return appRecord(app, lookup, store.deployments.current(app.uid)?.id ?? null);
  }

  function databaseNames(lookup: ResourceLookup, ids: string[] | undefined): string[] | undefined {
    return ids?.map((id, index) => lookup.referenced('Database', id, `/database_ids/${index}`).name);
  }

  router.get('/apps', (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = lookupFor(principal.tenant);
    const page = store.resources.page({ tenant: principal.tenant, kind: 'App' }, pageRequest(req));
    res.json(listBody(page, (r) => record(r as StoredResource<'App'>, lookup)));
  });

  router.post('/apps', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<AppCreateBody>('post', '/apps', req.body);
    const lookup = lookupFor(principal.tenant);
    const server = lookup.referenced('Server', body.server_id, '/server_id');
    const manifest = checkManifest(appManifest(body, server.name, databaseNames(lookup, body.database_ids) ?? []));
    const { created, webhookSecret } = store.transaction(() => {
      const created = store.resources.create(principal.tenant, 'api', manifest) as StoredResource<'App'>;
      return { created, webhookSecret: created.spec.source.git ? store.appWebhookSecrets.rotate(principal.tenant, created.uid) : undefined };
    });
    deps.afterWrite();
    setLocation(req, res, 'apps', created.uid);
    // The push webhook's secret is shown once, here; a rotation makes and shows a new one.
    sendRecord(res, 202, created.specVersion, { ...record(created, lookup), ...(webhookSecret !== undefined ? { webhook_secret: webhookSecret } : {}) });
  });

  router.post('/apps/:id/webhook-secret/rotate', (req, res) => {
    const principal = allowed(res, 'write');
    if (principal.role !== 'owner' && principal.role !== 'admin') throw new ForbiddenError(`role ${principal.role} may not rotate an app's webhook secret; an owner or admin may`);
    validateBody('post', '/apps/{id}/webhook-secret/rotate', req.body ?? {});
    const app = lookupFor(principal.tenant).byId('App', pathId(req));
    if (!app.spec.source.git) throw new ConflictError(`app ${app.name} has no git source, so it has no push webhook`);
    const webhookSecret = store.appWebhookSecrets.rotate(principal.tenant, app.uid);
    res.json({ app_id: app.uid, webhook_secret: webhookSecret, webhook_path: `/api/v1/apps/${app.uid}/webhook` });
  });

  router.get('/apps/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = lookupFor(principal.tenant);
    const app = lookup.byId('App', pathId(req));
    sendRecord(res, 200, app.specVersion, record(app, lookup));
  });

  router.put('/apps/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<AppUpdateBody>('put', '/apps/{id}', req.body);
    const lookup = lookupFor(principal.tenant);
    const current = lookup.byId('App', pathId(req));
    const manifest = checkManifest(updatedAppManifest(current, body, databaseNames(lookup, body.database_ids)));
    const updated = store.resources.modify(current.uid, 'api', () => manifest, expectedVersion(req, current)) as StoredResource<'App'>;
    deps.afterWrite();
    sendRecord(res, 202, updated.specVersion, record(updated, lookup));
  });

  router.delete('/apps/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const lookup = lookupFor(principal.tenant);
    const current = lookup.byId('App', pathId(req));
    const deleting = store.resources.requestDeletionOf(current.uid, 'api', expectedVersion(req, current)) as StoredResource<'App'>;
    deps.afterWrite();
    sendRecord(res, 202, deleting.specVersion, record(deleting, lookup));
  });

  router.post('/apps/:id/deploy', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<{ ref?: string }>('post', '/apps/{id}/deploy', req.body ?? {});
    const current = lookupFor(principal.tenant).byId('App', pathId(req));
    if (current.deletionTimestamp !== null) throw new ConflictError(`app ${current.name} is being deleted`);
    if (body.ref !== undefined && !current.spec.source.git) {
      const message = `app ${current.name} is not deployed from git, so it has no ref to choose`;
      throw new ValidationError(`ref: ${message}`, [{ pointer: '/ref', message }]);
    }
    const deployment = requestDeployment(store, current, { trigger: 'api', ...(body.ref !== undefined ? { ref: body.ref } : {}) });
    deps.afterWrite();
    setLocation(req, res, `apps/${current.uid}/deployments`, deployment.id);
    res.status(202).json(deploymentRecord(deployment));
  });

  const power = (type: ActionType, state: 'running' | 'stopped') => (req: Request, res: Response): void => {
    const principal = allowed(res, 'write');
    const current = lookupFor(principal.tenant).byId('App', pathId(req));
    if (current.deletionTimestamp !== null) throw new ConflictError(`app ${current.name} is being deleted`);
    const { app, action } = store.transaction(() => {
      const app = (current.spec.state ?? 'running') === state
        ? current
        : (store.resources.modify(current.uid, 'api', (r) => updatedAppManifest(r as StoredResource<'App'>, { state }, undefined)) as StoredResource<'App'>);
      return { app, action: store.actions.request(principal.tenant, current.uid, type, {}) };
    });
    deps.afterWrite();
    const settled = app.status.phase === state;
    res.status(202).json({ id: app.uid, status: settled ? state : state === 'stopped' ? 'stopping' : 'deploying', operation_id: action.id });
  };
  router.post('/apps/:id/stop', power('stop', 'stopped'));
  router.post('/apps/:id/start', power('start', 'running'));

  router.get('/apps/:id/deployments', (req, res) => {
    const principal = allowed(res, 'read');
    const app = lookupFor(principal.tenant).byId('App', pathId(req));
    res.json(listBody(store.deployments.page(app.uid, pageRequest(req)), deploymentRecord));
  });

  router.get('/apps/:id/deployments/:deployment/log', async (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = lookupFor(principal.tenant);
    const app = lookup.byId('App', pathId(req));
    const deployment = store.deployments.get(pathId(req, 'deployment'));
    if (!deployment || deployment.appUid !== app.uid) throw new NotFoundError(`app ${app.name} has no deployment with id ${pathId(req, 'deployment')}`);
    const kept = store.deployments.buildLog(deployment.id);
    const text = kept ?? (await liveBuildLog(deps, lookup, app, deployment));
    res.type('text/plain; charset=utf-8').send(text);
  });

  router.get('/apps/:id/logs', async (req, res) => {
    const principal = allowed(res, 'read');
    const tailText = queryText(req, 'tail');
    const since = queryText(req, 'since');
    const tail = tailText === undefined ? 100 : /^\d{1,5}$/.test(tailText) ? Number(tailText) : Number.NaN;
    if (!(tail >= 1 && tail <= MAX_LOG_TAIL)) {
      throw new ValidationError(`tail must be a whole number from 1 to ${MAX_LOG_TAIL}`, [{ pointer: '/tail', message: `must be from 1 to ${MAX_LOG_TAIL}` }]);
    }
    if (since !== undefined && Number.isNaN(Date.parse(since))) {
      throw new ValidationError('since must be an RFC 3339 timestamp', [{ pointer: '/since', message: 'must be an RFC 3339 timestamp' }]);
    }
    const lookup = lookupFor(principal.tenant);
    const app = lookup.byId('App', pathId(req));
    const { runtime, externalId } = await runtimeOf(deps.drivers, lookup, app);
    const lines = await runtime.apps.logs(externalId, { tail, ...(since !== undefined ? { since: new Date(since).toISOString() } : {}) });
    res.json({ items: lines.map((l) => ({ ts: l.ts, stream: l.stream, line: l.line })) });
  });

  return router;
}
