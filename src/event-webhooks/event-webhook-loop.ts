/**
 * @module The event webhook loop of `cairn serve`, run by the process that holds the reconcile
 * lease (beside the alert loops): twice a second it dispatches new events into deliveries and
 * sends what is due. Counts attempts on `/metrics` as
 * `cairn_event_webhook_deliveries_total{event, outcome}` (outcome delivered|retry|failed).
 * `stop()` waits for the round in progress.
 */
import { Counter, type Registry } from 'prom-client';
import { registeredOnce } from '../api/metrics.js';
import type { Store } from '../store/store.js';
import { EventWebhookDeliveries } from './event-webhook-deliveries.js';

const POLL_MS = 500;

export class EventWebhookLoop {
  private readonly deliveries: EventWebhookDeliveries;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(store: Store, registry: Registry, log: (line: string) => void = (line) => console.log(line)) {
    const counter = registeredOnce(registry, 'cairn_event_webhook_deliveries_total', () => new Counter({
      name: 'cairn_event_webhook_deliveries_total',
      help: 'Event webhook delivery attempts by event and outcome (delivered, retry, failed)',
      labelNames: ['event', 'outcome'],
      registers: [registry],
    }));
    this.deliveries = new EventWebhookDeliveries(store, {
      onOutcome: (outcome, delivery, error) => {
        counter.inc({ event: delivery.event, outcome });
        if (outcome !== 'delivered') log(`event webhook delivery ${delivery.id} (${delivery.event} to webhook ${delivery.webhookId}): ${outcome === 'retry' ? 'will retry' : 'failed for good'}: ${error ?? ''}`);
      },
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.deliveries.settled();
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      Promise.resolve()
        .then(() => {
          this.deliveries.dispatch();
          return this.deliveries.deliverDue();
        })
        .catch((error: unknown) => console.error(`event webhooks: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => this.schedule(POLL_MS));
    }, delayMs);
  }
}
