/**
 * @module `POST /apps/{id}/webhook`: deploy on push. Mounted before authentication like the
 * source webhook: the signature (GitHub's HMAC of the raw body or GitLab's token, checked by the
 * same `verifyWebhook`) is the credential, and a bad one is 401 before anything is read or
 * changed. A push to the App's git ref queues a deployment (trigger `webhook`) of that ref's
 * head, the pushed commit, and answers 202 with it; a push to another ref, or another event, is
 * answered 202 saying it was ignored and why. A replayed delivery (same delivery id) answers the
 * deployment it already made.
 */
import { Router } from 'express';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../../model/errors.js';
import { pushMovesRef, readPushEvent } from '../../sources/push-event.js';
import { verifyWebhook } from '../../sources/webhook-signature.js';
import { requestDeployment } from '../app-deploy.js';
import type { ApiDeps } from '../deps.js';
import { rawBodyOf } from '../raw-body.js';
import { deploymentRecord } from '../records/operation-record.js';
import { pathId, setLocation } from '../respond.js';

export function appWebhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;
  router.post('/apps/:id/webhook', (req, res) => {
    const found = store.resources.get(pathId(req));
    if (!found || found.kind !== 'App') throw new NotFoundError(`no app has id ${pathId(req)}`);
    const app = found;
    const secret = store.appWebhookSecrets.get(app.tenant, app.uid);
    const git = app.spec.source.git;
    if (!git) throw new ConflictError(`app ${app.name} has no git source, so there are no pushes to deploy`);
    if (secret === undefined) {
      throw new ConflictError(`app ${app.name} has no webhook secret yet: an owner or admin makes one with POST /apps/${app.uid}/webhook-secret/rotate`);
    }
    const verdict = verifyWebhook((name) => req.get(name), rawBodyOf(req), secret);
    if (!verdict.ok) throw new UnauthorizedError(verdict.reason);
    const event = readPushEvent((name) => req.get(name), req.body);
    if ('reason' in event) throw new ValidationError(event.reason, [{ pointer: '/ref', message: event.reason }]);
    if (event.kind === 'ping') {
      res.status(200).json({ deployed: false, sender: verdict.sender, message: 'ping received; pushes to the App\'s ref deploy it' });
      return;
    }
    if (event.kind === 'other') {
      res.status(202).json({ deployed: false, sender: verdict.sender, message: `${event.event} events are ignored; only pushes deploy` });
      return;
    }
    if (!pushMovesRef(event.ref, git.ref ?? 'main')) {
      res.status(202).json({ deployed: false, sender: verdict.sender, message: `the push is to ${event.ref}, not to the App's ref ${git.ref ?? 'main'}: nothing deployed` });
      return;
    }
    if (event.commit === null) {
      res.status(202).json({ deployed: false, sender: verdict.sender, message: `the push deleted ${event.ref}: nothing deployed` });
      return;
    }
    const replayed = event.deliveryId === undefined ? undefined : store.deployments.byDelivery(app.uid, event.deliveryId);
    const deployment = replayed ?? requestDeployment(store, app, {
      trigger: 'webhook', commit: event.commit, ...(event.deliveryId !== undefined ? { deliveryId: event.deliveryId } : {}),
    });
    if (!replayed) deps.afterWrite();
    setLocation(req, res, `apps/${app.uid}/deployments`, deployment.id);
    res.status(202).json(deploymentRecord(deployment));
  });
  return router;
}
