/**
 * @module `/webhooks`: a tenant's outbound event webhooks. Like sources (tenant-wide settings),
 * roles that may write (owner, admin, member) create and delete them; a viewer reads them.
 * Creating one answers its signing secret once: it is sealed with the webhook in one
 * transaction and never replayed by an Idempotency-Key retry. `GET /webhooks/{id}/deliveries`
 * is its delivery log.
 */
import { Router } from 'express';
import { newWebhookSecret } from '../../sources/webhook-signature.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { KEPT_BODY } from '../idempotency.js';
import { listBody, pageRequest } from '../pagination.js';
import { webhookDeliveryRecord, webhookRecord } from '../records/webhook-record.js';
import { validateBody } from '../request-validation.js';
import { pathId, setLocation } from '../respond.js';

interface WebhookCreateBody {
  url: string;
  events: string[];
  description?: string;
}

export function webhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { store } = deps;

  router.get('/webhooks', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(listBody(store.eventWebhooks.page(principal.tenant, pageRequest(req)), webhookRecord));
  });

  router.post('/webhooks', (req, res) => {
    const principal = allowed(res, 'write');
    const body = validateBody<WebhookCreateBody>('post', '/webhooks', req.body);
    const secret = newWebhookSecret();
    const created = store.transaction(() => {
      const made = store.eventWebhooks.create(principal.tenant, { url: body.url, events: body.events, description: body.description ?? null });
      store.secrets.put(principal.tenant, 'event-webhook', made.id, secret);
      return made;
    });
    setLocation(req, res, 'webhooks', created.id);
    const record = webhookRecord(created);
    // A retry with the same Idempotency-Key replays the answer without the secret: it is shown once, never kept in the clear.
    res.locals[KEPT_BODY] = JSON.stringify(record);
    res.status(201).json({ ...record, secret });
  });

  router.get('/webhooks/:id', (req, res) => {
    const principal = allowed(res, 'read');
    res.json(webhookRecord(store.eventWebhooks.getInTenant(principal.tenant, pathId(req))));
  });

  router.delete('/webhooks/:id', (req, res) => {
    const principal = allowed(res, 'write');
    const webhook = store.eventWebhooks.getInTenant(principal.tenant, pathId(req));
    store.transaction(() => {
      store.eventWebhooks.delete(webhook.id);
      store.secrets.delete(principal.tenant, 'event-webhook', webhook.id);
    });
    res.status(204).end();
  });

  router.get('/webhooks/:id/deliveries', (req, res) => {
    const principal = allowed(res, 'read');
    const webhook = store.eventWebhooks.getInTenant(principal.tenant, pathId(req));
    res.json(listBody(store.eventWebhooks.deliveries(webhook.id, pageRequest(req)), webhookDeliveryRecord));
  });

  return router;
}
