/**
 * @module Liveness and readiness: `/healthz` says the process is up; `/readyz` says the store
 * takes writes and this process is the one reconciling (sharded: takes part in reconciling, and
 * which shards it holds).
 */
import { Router } from 'express';

export interface ReadinessProbe {
  storeWritable(): boolean;
  reconciling(): boolean;
  /** Sharded reconciling: the shards this replica holds now. */
  shards?(): number[];
}

export function healthRouter(probe: ReadinessProbe): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const checks = { store: probe.storeWritable(), reconciler: probe.reconciling() };
    const ready = checks.store && checks.reconciler;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks, ...(probe.shards ? { shards: probe.shards() } : {}) });
  });
  return router;
}
