/**
 * @module An event webhook and its deliveries as REST shows them (`/webhooks`): snake_case, the
 * secret never (only the create answer carries it, beside this record).
 */
import type { StoredEventDelivery, StoredEventWebhook } from '../../store/event-webhooks.js';

export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  created_at: string;
}

export interface WebhookDeliveryRecord {
  id: string;
  event: string;
  resource: { kind: string; id: string; name: string };
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export function webhookRecord(w: StoredEventWebhook): WebhookRecord {
  return { id: w.id, url: w.url, events: w.events, description: w.description, created_at: w.createdAt };
}

export function webhookDeliveryRecord(d: StoredEventDelivery): WebhookDeliveryRecord {
  return {
    id: d.id, event: d.event, resource: d.resource, status: d.status, attempts: d.attempts, last_error: d.lastError,
    created_at: d.createdAt, delivered_at: d.deliveredAt,
  };
}
