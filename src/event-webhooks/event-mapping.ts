/**
 * @module Which entries of the event log are webhook events, and the body each is sent as.
 * `resource.created` is a Server's, Database's or App's Created event; `resource.ready` and
 * `resource.failed` the Ready and Failed events a reconcile records when a resource becomes
 * ready or enters its failed phase; `resource.deleted` the Deleted (or Orphaned: removed from
 * cairn, left at the vendor) event; deployments and backups their own reasons. Pure.
 */
import { REASON_BACKUP_COMPLETED, REASON_BACKUP_FAILED } from '../reconcile/database-backups.js';
import { REASON_DEPLOYMENT_FAILED, REASON_DEPLOYMENT_SUCCEEDED } from '../reconcile/app-deployments.js';
import { REASON_CREATED, REASON_DELETED, REASON_ORPHANED } from '../reconcile/managed.js';
import { REASON_BECAME_FAILED, REASON_BECAME_READY } from '../reconcile/reconcile-resource.js';
import type { RecordedEvent } from '../store/events.js';
import type { MappedEvent } from '../store/event-webhooks.js';

export const WEBHOOK_EVENTS = [
  'resource.created', 'resource.ready', 'resource.failed', 'resource.deleted',
  'deployment.succeeded', 'deployment.failed', 'backup.completed', 'backup.failed',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

const BY_REASON: Record<string, WebhookEventName> = {
  [REASON_CREATED]: 'resource.created',
  [REASON_BECAME_READY]: 'resource.ready',
  [REASON_BECAME_FAILED]: 'resource.failed',
  [REASON_DELETED]: 'resource.deleted',
  [REASON_ORPHANED]: 'resource.deleted',
  [REASON_DEPLOYMENT_SUCCEEDED]: 'deployment.succeeded',
  [REASON_DEPLOYMENT_FAILED]: 'deployment.failed',
  [REASON_BACKUP_COMPLETED]: 'backup.completed',
  [REASON_BACKUP_FAILED]: 'backup.failed',
};

/** The webhook event an event-log entry is, if any. */
export function webhookEventOf(event: Pick<RecordedEvent, 'reason'>): WebhookEventName | undefined {
  return Object.hasOwn(BY_REASON, event.reason) ? BY_REASON[event.reason] : undefined;
}

export interface WebhookEventBody {
  id: string;
  event: WebhookEventName;
  occurred_at: string;
  resource: { kind: string; id: string; name: string; namespace: string };
  detail: { reason: string; type: string; message: string };
}

export function webhookEventBody(deliveryId: string, name: WebhookEventName, event: RecordedEvent): WebhookEventBody {
  return {
    id: deliveryId,
    event: name,
    occurred_at: event.createdAt,
    resource: { kind: event.kind, id: event.uid, name: event.name, namespace: event.namespace },
    detail: { reason: event.reason, type: event.type, message: event.message },
  };
}

/** The event as the dispatcher writes it (its name and exact body), or undefined when no webhook event. */
export function mapEvent(event: RecordedEvent): MappedEvent | undefined {
  const name = webhookEventOf(event);
  if (!name) return undefined;
  return { name, body: (deliveryId) => JSON.stringify(webhookEventBody(deliveryId, name, event)) };
}
