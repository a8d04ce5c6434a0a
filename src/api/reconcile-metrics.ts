/**
 * @module Reconcile metrics under controller-runtime's names, fed by the Controller's
 * `onReconciled` callback (one controller per kind, named in lower case) and, for the queue
 * depth, read from the controller whenever Prometheus scrapes.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { KINDS, type Kind } from '../model/kinds.js';
import type { AnyStoredResource } from '../model/resource.js';
import type { ReconcileOutcome } from '../reconcile/reconcile-resource.js';
import { registeredOnce } from './metrics.js';

/**
 * controller-runtime's result labels as cairn's outcomes map to them: `success` (converged, no
 * timed look asked for), `requeue_after` (a timed look again, or a wait for a dependency),
 * `error` (a failure retried with backoff, or a stall that needs the user). controller-runtime's
 * `requeue` (rate-limited requeue without an error) has no counterpart in cairn.
 */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue_after';

export interface ReconcileMetricsSource {
  /** Resources queued and waiting for a worker, by kind (Controller.queueDepthByKind). */
  queueDepthByKind(): Record<Kind, number>;
}

export interface ReconcileMetrics {
  /** Pass as the Controller's `onReconciled` option (a bound function). */
  onReconciled: (resource: AnyStoredResource, outcome: ReconcileOutcome, durationMs: number) => void;
}

/** Buckets of controller-runtime's `controller_runtime_reconcile_time_seconds`. */
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7,
  8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

export function reconcileResultLabel(outcome: ReconcileOutcome): ReconcileResultLabel {
  if (outcome.ok) return outcome.result.requeueAfterMs === undefined ? 'success' : 'requeue_after';
  return outcome.failure.kind === 'wait' ? 'requeue_after' : 'error';
}

export function controllerName(kind: Kind): string {
  return kind.toLowerCase();
}

/**
 * Registers the reconcile metrics on `registry`. `source` is read at each scrape; a getter that
 * reads the current Controller keeps working when `cairn serve` replaces it (after losing the lease).
 */
export function createReconcileMetrics(registry: Registry, source: ReconcileMetricsSource): ReconcileMetrics {
  const total = registeredOnce(
    registry,
    'controller_runtime_reconcile_total',
    () =>
      new Counter<'controller' | 'result'>({
        name: 'controller_runtime_reconcile_total',
        help: 'Total number of reconciliations per controller, by result.',
        labelNames: ['controller', 'result'],
        registers: [registry],
      }),
  );
  const errors = registeredOnce(
    registry,
    'controller_runtime_reconcile_errors_total',
    () =>
      new Counter<'controller'>({
        name: 'controller_runtime_reconcile_errors_total',
        help: 'Total number of reconciliation errors per controller (retried and terminal).',
        labelNames: ['controller'],
        registers: [registry],
      }),
  );
  const terminal = registeredOnce(
    registry,
    'controller_runtime_terminal_reconcile_errors_total',
    () =>
      new Counter<'controller'>({
        name: 'controller_runtime_terminal_reconcile_errors_total',
        help: 'Total number of terminal reconciliation errors per controller: stalls, not retried until the spec changes.',
        labelNames: ['controller'],
        registers: [registry],
      }),
  );
  const time = registeredOnce(
    registry,
    'controller_runtime_reconcile_time_seconds',
    () =>
      new Histogram<'controller'>({
        name: 'controller_runtime_reconcile_time_seconds',
        help: 'Length of time per reconciliation per controller.',
        labelNames: ['controller'],
        buckets: RECONCILE_TIME_BUCKETS,
        registers: [registry],
      }),
  );
  registeredOnce(
    registry,
    'workqueue_depth',
    () =>
      new Gauge<'name'>({
        name: 'workqueue_depth',
        help: 'Current depth of the work queue: resources waiting for a worker, per controller (kind).',
        labelNames: ['name'],
        registers: [registry],
        collect(): void {
          const depth = source.queueDepthByKind();
          for (const kind of KINDS) this.set({ name: controllerName(kind) }, depth[kind]);
        },
      }),
  );
  // Every series exists from the start, so that rate() and absent() see zeros rather than nothing.
  for (const kind of KINDS) {
    const controller = controllerName(kind);
    for (const result of ['success', 'error', 'requeue_after'] as const) total.inc({ controller, result }, 0);
    errors.inc({ controller }, 0);
    terminal.inc({ controller }, 0);
  }
  return {
    onReconciled: (resource, outcome, durationMs): void => {
      const controller = controllerName(resource.kind);
      total.inc({ controller, result: reconcileResultLabel(outcome) });
      time.observe({ controller }, durationMs / 1000);
      if (!outcome.ok && outcome.failure.kind !== 'wait') {
        errors.inc({ controller });
        if (outcome.failure.kind === 'stall') terminal.inc({ controller });
      }
    },
  };
}
