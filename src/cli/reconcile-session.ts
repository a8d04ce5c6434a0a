/**
 * @module Getting resources reconciled from a one-shot command: if no other process holds the
 * data dir's lease, run the controller here until the targets settle; otherwise say who does
 * and follow its progress through the store. Never reconciles alongside another process.
 */
import { Controller, LeaseHeldError } from '../reconcile/controller.js';
import type { Store } from '../store/store.js';
import { followConvergence, type ConvergenceReport, type ConvergenceTarget } from './convergence.js';
import { controllerOptionsFromEnv } from './controller-options.js';
import { reportConvergence } from './report-convergence.js';

export interface SessionOptions {
  dataDir: string;
  timeoutMs: number;
  write: (line: string) => void;
  note: (line: string) => void;
}

export async function reconcileUntilSettled(store: Store, targets: readonly ConvergenceTarget[], options: SessionOptions): Promise<ConvergenceReport> {
  // Recorded status may be stale (the world changed, or a killed run left a vendor call in
  // flight): a target counts as settled only once this run's controller has looked at it.
  const observed = new Set<string>();
  const controller = new Controller(store, {
    ...controllerOptionsFromEnv(options.dataDir),
    onReconciled: (resource) => observed.add(resource.uid),
  });
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
      observed: own ? (uid) => observed.has(uid) : undefined,
    });
  } finally {
    if (own) await controller.stop();
  }
}

/**
 * The end of `apply` and `delete`: when `cairn serve` reconciles and --wait was not given, say so
 * and return; otherwise get the targets settled (here or by following) and report the outcome.
 */
export async function settleOrHandOff(
  store: Store,
  targets: readonly ConvergenceTarget[],
  options: { dataDir: string; timeoutMs: number; wait: boolean; verb: 'Apply' | 'Delete' },
): Promise<void> {
  const holder = Controller.activeReconciler(store);
  if (holder && !options.wait) {
    const done = options.verb === 'Apply' ? 'Applied' : 'Deletion requested';
    const replicas = store.shardLeases.liveReplicas();
    const who = replicas.length > 1
      ? `${replicas.length} cairn replicas (${replicas.map((r) => `pid ${r.pid} on ${r.host}`).join(', ')}) are`
      : `cairn (pid ${holder.pid} on ${holder.host}) is`;
    console.log(`${done}. ${who} reconciling; add --wait to follow ${replicas.length > 1 ? 'their' : 'its'} progress`);
    return;
  }
  const report = await reconcileUntilSettled(store, targets, {
    dataDir: options.dataDir,
    timeoutMs: options.timeoutMs,
    write: (line) => console.log(line),
    note: (line) => console.error(line),
  });
  reportConvergence(report, options.verb);
}
