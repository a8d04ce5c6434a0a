/**
 * @module Event webhooks' two steps, run by the lease holder: `dispatch` turns new entries of
 * the event log into pending deliveries (the store advances its cursor in the same
 * transaction), and `deliverDue` sends them through the delivery rounds
 * (src/outbox/delivery-rounds.ts): signed with the webhook's secret, `X-Cairn-Event` naming the
 * event, retried with backoff.
 */
import { postWebhook } from '../net/webhook-post.js';
import { DeliveryRounds, type DeliveryOutcome } from '../outbox/delivery-rounds.js';
import type { StoredEventDelivery } from '../store/event-webhooks.js';
import type { Store } from '../store/store.js';
import { mapEvent } from './event-mapping.js';

export const EVENT_HEADER = 'X-Cairn-Event';

export interface EventDeliveryHooks {
  onOutcome?(outcome: DeliveryOutcome, delivery: StoredEventDelivery, error?: string): void;
}

export class EventWebhookDeliveries {
  private readonly rounds: DeliveryRounds<StoredEventDelivery>;

  constructor(private readonly store: Store, hooks: EventDeliveryHooks = {}, now: () => Date = () => new Date()) {
    this.rounds = new DeliveryRounds<StoredEventDelivery>({
      committed: () => store.commits.committed(),
      due: (at, limit) => store.eventWebhooks.due(at, limit),
      send: (delivery) => this.send(delivery),
      markDelivered: (id, at) => store.eventWebhooks.outbox.markDelivered(id, at),
      markAttemptFailed: (id, error, retryAt) => store.eventWebhooks.outbox.markAttemptFailed(id, error, retryAt),
      onOutcome: (outcome, delivery, error) => hooks.onOutcome?.(outcome, delivery, error),
    }, now);
  }

  /** Writes the deliveries of every event not dispatched yet; returns how many. */
  dispatch(): number {
    let written = 0;
    for (;;) {
      const step = this.store.eventWebhooks.dispatch(this.store.events, mapEvent);
      written += step.written;
      if (!step.more) return written;
    }
  }

  /** Sends what is due; resolves to how many were attempted. */
  deliverDue(): Promise<number> {
    return this.rounds.deliverDue();
  }

  settled(): Promise<void> {
    return this.rounds.settled();
  }

  private async send(delivery: StoredEventDelivery): Promise<void> {
    const webhook = this.store.eventWebhooks.get(delivery.webhookId);
    if (!webhook) throw new Error(`webhook ${delivery.webhookId} no longer exists`);
    const secret = this.store.secrets.get(webhook.tenant, 'event-webhook', webhook.id);
    if (secret === undefined) throw new Error(`webhook ${webhook.id} has no secret to sign with`);
    await postWebhook({
      url: webhook.url, body: delivery.body, deliveryId: delivery.id, userAgent: 'cairn-events', secret,
      headers: { [EVENT_HEADER]: delivery.event },
    });
  }
}
