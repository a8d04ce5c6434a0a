/**
 * @module Getting resources reconciled from a one-shot command: if no other process holds the
 * data dir's lease, run the controller here until the targets settle; otherwise say who does
 * and follow its progress through the store. Never reconciles alongside another process.
 */
import { Controller, LeaseHeldError } from '../reconcile/controller.js';
import type { Store } from '../store/store.js';
import { followConvergence, type ConvergenceReport, type ConvergenceTarget } from './convergence.js';
import { controllerOptionsFromEnv } from './controller-options.js';

export interface SessionOptions {
  dataDir: string;
  timeoutMs: number;
  write: (line: string) => void;
  note: (line: string) => void;
}

export async function reconcileUntilSettled(store: Store, targets: readonly ConvergenceTarget[], options: SessionOptions): Promise<ConvergenceReport> {
  const controller = new Controller(store, controllerOptionsFromEnv(options.dataDir));
  let own = false;
  try {
    controller.start();
    own = true;
  } catch (error) {
    if (!(error instanceof LeaseHeldError)) throw error;
    options.note(`${error.message}; following its progress`);
  }
  try {
    return await followConvergence(store, targets, {
      timeoutMs: options.timeoutMs,
      write: options.write,
      onTick: own ? () => controller.readFeed() : undefined,
    });
  } finally {
    if (own) await controller.stop();
  }
}
