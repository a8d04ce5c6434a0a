/**
 * @module Alerts' notification outbox as the delivery rounds send it (src/outbox/delivery-rounds.ts:
 * due, sent, marked, retried with backoff): e-mail through SMTP, webhooks in Slack, Discord or
 * signed json form.
 */
import type { StoredDelivery } from '../store/alerts.js';
import type { Store } from '../store/store.js';
import { DeliveryRounds, type DeliveryOutcome } from '../outbox/delivery-rounds.js';
import { MAIL_FROM_SETTING, SMTP_URL_SETTING } from './alert-settings.js';
import { sendWebhook, type EmailSender, type WebhookFormat } from './channel-senders.js';
import { newWebhookSecret } from '../sources/webhook-signature.js';

export type { DeliveryOutcome } from '../outbox/delivery-rounds.js';

export interface DeliveryHooks {
  onOutcome?(channel: string, outcome: DeliveryOutcome, delivery: StoredDelivery, error?: string): void;
}

/** `email`, or the webhook's format (`slack`, `discord`, `json`): the channel as metrics name it. */
export function channelKind(channel: Record<string, unknown>): string {
  if (channel.type === 'email') return 'email';
  return typeof channel.format === 'string' ? channel.format : 'json';
}

export class AlertDeliveries {
  private readonly rounds: DeliveryRounds<StoredDelivery>;

  constructor(
    private readonly store: Store,
    private readonly email: EmailSender | undefined,
    hooks: DeliveryHooks = {},
    now: () => Date = () => new Date(),
  ) {
    this.rounds = new DeliveryRounds<StoredDelivery>({
      committed: () => store.commits.committed(),
      due: (at, limit) => store.alerts.due(at, limit),
      send: (delivery) => this.send(delivery),
      markDelivered: (id, at) => store.alerts.markDelivered(id, at),
      markAttemptFailed: (id, error, retryAt) => store.alerts.markAttemptFailed(id, error, retryAt),
      onOutcome: (outcome, delivery, error) => hooks.onOutcome?.(channelKind(delivery.channel), outcome, delivery, error),
    }, now);
  }

  /** Sends what is due; resolves to how many were attempted. A round already running is joined, not doubled. */
  deliverDue(): Promise<number> {
    return this.rounds.deliverDue();
  }

  /** Resolves once the round in progress (if any) has ended; starts none. */
  settled(): Promise<void> {
    return this.rounds.settled();
  }

  private async send(delivery: StoredDelivery): Promise<void> {
    const alert = this.store.alerts.alertOf(delivery);
    if (!alert) throw new Error(`alert ${delivery.alertId} no longer exists`);
    const channel = delivery.channel;
    if (channel.type === 'email') {
      if (!this.email) throw new Error(`cairn cannot send e-mail: ${SMTP_URL_SETTING} and ${MAIL_FROM_SETTING} are not set where it serves`);
      await this.email.send(delivery.id, String(channel.to), delivery.event, alert);
      return;
    }
    const format = (channel.format ?? 'json') as WebhookFormat;
    let secret: string | undefined;
    if (format === 'json') {
      // A rule made from a manifest has no secret until its first json webhook; the first one made is kept.
      this.store.secrets.putIfAbsent(alert.tenant, 'alert-webhook', alert.ruleUid, newWebhookSecret());
      secret = this.store.secrets.get(alert.tenant, 'alert-webhook', alert.ruleUid);
    }
    await sendWebhook({ url: String(channel.url), format, secret }, delivery.id, delivery.event, alert);
  }
}
