/**
 * @module The delivery loop's work: every pending notification that is due is sent, then marked
 * delivered; a failed attempt keeps its error and is tried again after the backoff
 * (delivery-backoff.ts), and is marked failed once out of attempts. Before sending, whatever
 * the store's commit group holds is committed, so no notification goes out for an alert a crash
 * could still lose; a crash after sending and before marking sends it again, under the same
 * delivery id for the receiver to drop. One round at a time.
 */
import type { StoredDelivery } from '../store/alerts.js';
import type { Store } from '../store/store.js';
import { MAIL_FROM_SETTING, SMTP_URL_SETTING } from './alert-settings.js';
import { sendWebhook, type EmailSender, type WebhookFormat } from './channel-senders.js';
import { retryDelayMs } from './delivery-backoff.js';
import { newWebhookSecret } from '../sources/webhook-signature.js';

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface DeliveryHooks {
  onOutcome?(channel: string, outcome: DeliveryOutcome, delivery: StoredDelivery, error?: string): void;
}

/** `email`, or the webhook's format (`slack`, `discord`, `json`): the channel as metrics name it. */
export function channelKind(channel: Record<string, unknown>): string {
  if (channel.type === 'email') return 'email';
  return typeof channel.format === 'string' ? channel.format : 'json';
}

export class AlertDeliveries {
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly email: EmailSender | undefined,
    private readonly hooks: DeliveryHooks = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Sends what is due; resolves to how many were attempted. A round already running is joined, not doubled. */
  deliverDue(): Promise<number> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves once the round in progress (if any) has ended; starts none. */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async round(): Promise<number> {
    await this.store.commits.committed();
    const due = this.store.alerts.due(this.now().toISOString(), 50);
    for (const delivery of due) await this.deliver(delivery);
    return due.length;
  }

  private async deliver(delivery: StoredDelivery): Promise<void> {
    const kind = channelKind(delivery.channel);
    try {
      await this.send(delivery);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const wait = retryDelayMs(delivery.attempts + 1);
      const retryAt = wait === null ? null : new Date(this.now().getTime() + wait).toISOString();
      this.store.alerts.markAttemptFailed(delivery.id, message, retryAt);
      this.hooks.onOutcome?.(kind, retryAt === null ? 'failed' : 'retry', delivery, message);
      return;
    }
    this.store.alerts.markDelivered(delivery.id, this.now().toISOString());
    this.hooks.onOutcome?.(kind, 'delivered', delivery);
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
