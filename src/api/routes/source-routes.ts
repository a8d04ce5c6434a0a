/**
 * @module `/sources`: git sources of manifests. Creating one answers its webhook secret once;
 * PATCH changes ref, path, interval, prune or suspension; DELETE removes it (its resources are
 * deleted when it prunes, handed to the API otherwise); `POST /sync` asks for a sync now.
 * `POST /sources/{id}/webhook` takes push events without a bearer token: their signature
 * (GitHub's HMAC or GitLab's token, checked in constant time) is their credential.
 */
import { Router } from 'express';
import { NotFoundError, UnauthorizedError } from '../../model/errors.js';
import { removeSource } from '../../sources/source-removal.js';
import { newWebhookSecret, verifyWebhook } from '../../sources/webhook-signature.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { rawBodyOf } from '../raw-body.js';
import { listBody, pageRequest } from '../pagination.js';
import { newSourceFromBody, sourceChangesFromBody, sourceRecord, type SourceCreateBody, type SourceUpdateBody } from '../records/source-record.js';
import { validateBody } from '../request-validation.js';
import { pathId, setLocation } from '../respond.js';

function requestSync(deps: ApiDeps, id: string): void {
  if (deps.requestSourceSync) deps.requestSourceSync(id);
  else deps.store.sources.requestSync(id);
}

/** The webhook: mounted before authentication. */
export function sourceWebhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/sources/:id/webhook', (req, res) => {
    const source = deps.store.sources.get(pathId(req));
    const secret = source && deps.store.sources.webhookSecret(source);
    if (!source || secret === undefined) throw new NotFoundError(`no source has id ${pathId(req)}`);
    const verdict = verifyWebhook((name) => req.get(name), rawBodyOf(req), secret);
    if (!verdict.ok) throw new UnauthorizedError(verdict.reason);
    const event = req.get('x-github-event') ?? req.get('x-gitlab-event') ?? 'push';
    if (event === 'ping') {
      res.status(200).json({ triggered: false, sender: verdict.sender, message: 'ping received; push events trigger a sync' });
      return;
    }
    if (source.suspended) {
      res.status(202).json({ triggered: false, sender: verdict.sender, message: 'the source is suspended; nothing is applied until it is resumed' });
      return;
    }
    requestSync(deps, source.id);
    res.status(202).json({ triggered: true, sender: verdict.sender, message: `sync of ${source.name} requested` });
  });
  return router;
}

export function sourceRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;

  router.get('/sources', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(listBody(store.sources.page(principal.tenant, pageRequest(req)), (s) => sourceRecord(s, store)));
  });

  router.post('/sources', (req, res) => {
    const principal = allowed(res, 'write');
    const source = newSourceFromBody(validateBody<SourceCreateBody>('post', '/sources', req.body));
    const webhookSecret = newWebhookSecret();
    const created = store.sources.create(principal.tenant, source, webhookSecret);
    if (!created.suspended) requestSync(deps, created.id);
    setLocation(req, res, 'sources', created.id);
    res.status(201).json({ ...sourceRecord(store.sources.get(created.id) ?? created, store), webhook_secret: webhookSecret });
  });

  router.get('/sources/:id', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(sourceRecord(store.sources.getInTenant(principal.tenant, pathId(req)), store));
  });

  router.patch('/sources/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const current = store.sources.getInTenant(principal.tenant, pathId(req));
    const changes = sourceChangesFromBody(validateBody<SourceUpdateBody>('patch', '/sources/{id}', req.body));
    const updated = store.sources.update(current.id, changes);
    if (updated.syncRequests !== current.syncRequests) requestSync(deps, updated.id);
    res.json(sourceRecord(store.sources.get(updated.id) ?? updated, store));
  });

  router.delete('/sources/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const current = store.sources.getInTenant(principal.tenant, pathId(req));
    removeSource(store, current);
    deps.afterWrite();
    res.status(204).end();
  });

  router.post('/sources/:id/sync', (req, res) => {
    const principal = allowed(res, 'write');
    const current = store.sources.getInTenant(principal.tenant, pathId(req));
    validateBody('post', '/sources/{id}/sync', req.body);
    requestSync(deps, current.id);
    res.status(202).json(sourceRecord(store.sources.get(current.id) ?? current, store));
  });

  return router;
}
