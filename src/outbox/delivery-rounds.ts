/**
 * @module The delivery loop's round over an outbox (alerts' notifications, event webhooks):
 * every pending delivery that is due is sent, then marked delivered; a failed attempt keeps its
 * error and is tried again after the backoff (delivery-backoff.ts), and is marked failed once
 * out of attempts. Before sending, whatever the store's commit group holds is committed, so
 * nothing goes out for a decision a crash could still lose; a crash after sending and before
 * marking sends it again, under the same delivery id for the receiver to drop. One round at a
 * time: a round asked for while one runs joins it.
 */
import { retryDelayMs } from './delivery-backoff.js';

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

/** What a round needs of one outbox. */
export interface Outbox<D extends { id: string; attempts: number }> {
  /** Makes what was decided so far durable (the store's commit group). */
  committed(): Promise<void>;
  due(now: string, limit: number): D[];
  send(delivery: D): Promise<void>;
  markDelivered(id: string, at: string): void;
  markAttemptFailed(id: string, error: string, retryAt: string | null): void;
  onOutcome?(outcome: DeliveryOutcome, delivery: D, error?: string): void;
}

const ROUND_SIZE = 50;

export class DeliveryRounds<D extends { id: string; attempts: number }> {
  private running: Promise<number> | undefined;

  constructor(private readonly outbox: Outbox<D>, private readonly now: () => Date = () => new Date()) {}

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
    await this.outbox.committed();
    const due = this.outbox.due(this.now().toISOString(), ROUND_SIZE);
    for (const delivery of due) await this.deliver(delivery);
    return due.length;
  }

  private async deliver(delivery: D): Promise<void> {
    try {
      await this.outbox.send(delivery);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const wait = retryDelayMs(delivery.attempts + 1);
      const retryAt = wait === null ? null : new Date(this.now().getTime() + wait).toISOString();
      this.outbox.markAttemptFailed(delivery.id, message, retryAt);
      this.outbox.onOutcome?.(retryAt === null ? 'failed' : 'retry', delivery, message);
      return;
    }
    this.outbox.markDelivered(delivery.id, this.now().toISOString());
    this.outbox.onOutcome?.('delivered', delivery);
  }
}
