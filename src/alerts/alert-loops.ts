/**
 * @module The alert loops of `cairn serve`, run by the process that holds the reconcile lease:
 * evaluation every CAIRN_ALERT_INTERVAL_SECONDS, and the delivery of notifications (looked at
 * twice a second, and at once after a round that changed something). `stop()` waits for the
 * round in progress.
 */
import type { Registry } from 'prom-client';
import type { DriverPool } from '../reconcile/driver-pool.js';
import type { Store } from '../store/store.js';
import { AlertDeliveries } from './alert-deliveries.js';
import { AlertEvaluator } from './alert-evaluator.js';
import { createAlertMetrics } from './alert-metrics.js';
import { alertIntervalSeconds, mailSettings } from './alert-settings.js';
import { EmailSender } from './channel-senders.js';

const DELIVERY_POLL_MS = 500;

export interface AlertLoopOptions {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /**
   * What the firing gauge reads at each scrape (default: `store`). When `store` is fenced by the
   * singletons lease, the plain store: any replica answers /metrics, holder or not.
   */
  gaugeStore?: Pick<Store, 'alerts'>;
}

export class AlertLoops {
  private readonly evaluator: AlertEvaluator;
  private readonly deliveries: AlertDeliveries;
  private readonly email: EmailSender | undefined;
  private readonly intervalMs: number;
  private evaluationTimer: NodeJS.Timeout | undefined;
  private deliveryTimer: NodeJS.Timeout | undefined;
  private evaluating: Promise<void> | undefined;
  private running = false;

  /** Reads the settings (a bad one throws, naming it) without starting anything. */
  constructor(store: Store, drivers: Pick<DriverPool, 'cloudFor'>, registry: Registry, options: AlertLoopOptions = {}) {
    const env = options.env ?? process.env;
    const log = options.log ?? ((line: string) => console.log(line));
    this.intervalMs = alertIntervalSeconds(env) * 1000;
    const mail = mailSettings(env);
    this.email = mail ? new EmailSender(mail) : undefined;
    const metrics = createAlertMetrics(registry, options.gaugeStore ?? store);
    this.evaluator = new AlertEvaluator(store, drivers, {
      onTransition: (event, alert) => {
        metrics.transition(event);
        log(`alert ${event}: ${alert.ruleName} on ${alert.serverName} (${alert.metric} ${event === 'firing' ? alert.value : (alert.resolvedValue ?? '?')}, threshold ${alert.threshold}; alert ${alert.id})`);
      },
      onMetricsError: (server, error) => log(`alerts: metrics of server ${server.name} unreadable this round: ${error instanceof Error ? error.message : String(error)}`),
    });
    this.deliveries = new AlertDeliveries(store, this.email, {
      onOutcome: (channel, outcome, delivery, error) => {
        metrics.delivery(channel, outcome);
        if (outcome !== 'delivered') log(`alert notification ${delivery.id} (${channel}, ${delivery.event}): ${outcome === 'retry' ? 'will retry' : 'failed for good'}: ${error ?? ''}`);
      },
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleEvaluation(0);
    this.scheduleDelivery(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.evaluationTimer);
    clearTimeout(this.deliveryTimer);
    await this.evaluating;
    await this.deliveries.settled();
  }

  /** Closes the SMTP connection pool (after stop). */
  close(): void {
    this.email?.close();
  }

  private scheduleEvaluation(delayMs: number): void {
    if (!this.running) return;
    this.evaluationTimer = setTimeout(() => {
      this.evaluating = this.evaluator.evaluateAll()
        .catch((error: unknown) => console.error(`alerts: evaluation failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          this.evaluating = undefined;
          this.scheduleDelivery(0);
          this.scheduleEvaluation(this.intervalMs);
        });
    }, delayMs);
  }

  private scheduleDelivery(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.deliveryTimer);
    this.deliveryTimer = setTimeout(() => {
      this.deliveries.deliverDue()
        .catch((error: unknown) => console.error(`alerts: delivery failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => this.scheduleDelivery(DELIVERY_POLL_MS));
    }, delayMs);
  }
}
