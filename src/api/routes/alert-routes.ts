/**
 * @module `/alert-rules` (kind AlertRule: create, list, read, change, delete) and `/alerts` (the
 * alerts rules fired, newest first, and one alert with its deliveries). Creating a rule answers
 * the secret that signs its json webhooks, once: it is sealed with the rule in one transaction
 * and never replayed by an Idempotency-Key retry.
 */
import { Router } from 'express';
import { alertRecord, deliveryRecord } from '../../alerts/alert-record.js';
import { NotFoundError } from '../../model/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { newWebhookSecret } from '../../sources/webhook-signature.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { KEPT_BODY } from '../idempotency.js';
import { listBody, pageRequest } from '../pagination.js';
import {
  alertRuleManifest, alertRuleRecord, checkEmailChannels, updatedAlertRuleManifest,
  type AlertRuleCreateBody, type AlertRuleUpdateBody,
} from '../records/alert-rule-record.js';
import { ResourceLookup } from '../records/lookup.js';
import { checkManifest } from '../records/manifest-check.js';
import { validateBody } from '../request-validation.js';
import { pathId, sendRecord, setLocation } from '../respond.js';
import { expectedVersion } from '../versioning.js';

export function alertRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;

  router.get('/alert-rules', (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = new ResourceLookup(store, principal.tenant);
    const page = store.resources.page({ tenant: principal.tenant, kind: 'AlertRule' }, pageRequest(req));
    res.json(listBody(page, (r) => alertRuleRecord(r as StoredResource<'AlertRule'>, lookup)));
  });

  router.post('/alert-rules', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<AlertRuleCreateBody>('post', '/alert-rules', req.body);
    const lookup = new ResourceLookup(store, principal.tenant);
    const manifest = checkManifest(alertRuleManifest(body, lookup));
    checkEmailChannels(manifest.spec);
    const secret = newWebhookSecret();
    const created = store.transaction(() => {
      const made = store.resources.create(principal.tenant, 'api', manifest) as StoredResource<'AlertRule'>;
      store.secrets.put(principal.tenant, 'alert-webhook', made.uid, secret);
      return made;
    });
    deps.afterWrite();
    setLocation(req, res, 'alert-rules', created.uid);
    const record = alertRuleRecord(created, lookup);
    // A retry with the same Idempotency-Key replays the answer without the secret: it is shown once, never kept in the clear.
    res.locals[KEPT_BODY] = JSON.stringify(record);
    sendRecord(res, 201, created.specVersion, { ...record, webhook_secret: secret });
  });

  router.get('/alert-rules/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const lookup = new ResourceLookup(store, principal.tenant);
    const rule = lookup.byId('AlertRule', pathId(req));
    sendRecord(res, 200, rule.specVersion, alertRuleRecord(rule, lookup));
  });

  router.put('/alert-rules/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<AlertRuleUpdateBody>('put', '/alert-rules/{id}', req.body);
    const lookup = new ResourceLookup(store, principal.tenant);
    const current = lookup.byId('AlertRule', pathId(req));
    const manifest = checkManifest(updatedAlertRuleManifest(current, body, lookup));
    checkEmailChannels(manifest.spec);
    const updated = store.resources.modify(current.uid, 'api', () => manifest, expectedVersion(req, current)) as StoredResource<'AlertRule'>;
    deps.afterWrite();
    sendRecord(res, 200, updated.specVersion, alertRuleRecord(updated, lookup));
  });

  router.delete('/alert-rules/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const lookup = new ResourceLookup(store, principal.tenant);
    const current = lookup.byId('AlertRule', pathId(req));
    const deleting = store.resources.requestDeletionOf(current.uid, 'api', expectedVersion(req, current)) as StoredResource<'AlertRule'>;
    deps.afterWrite();
    sendRecord(res, 202, deleting.specVersion, alertRuleRecord(deleting, lookup));
  });

  router.get('/alerts', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(listBody(store.alerts.page(principal.tenant, pageRequest(req)), alertRecord));
  });

  router.get('/alerts/:id', (req, res) => {
    const principal = allowed(res, 'read');
    const alert = store.alerts.get(principal.tenant, pathId(req));
    if (!alert) throw new NotFoundError(`no alert has id ${pathId(req)}`);
    res.json({ ...alertRecord(alert), deliveries: store.alerts.deliveriesOf(alert.id).map(deliveryRecord) });
  });

  return router;
}
