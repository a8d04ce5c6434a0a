/**
 * @module The Prometheus registry of one cairn process (its own, not prom-client's global one,
 * so that tests can make several) with the default process metrics, and `GET /metrics` serving
 * it in the text exposition format.
 */
import { Router } from 'express';
import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';

/** A fresh registry holding the default process metrics (CPU, memory, event loop lag, GC, handles). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The metric of that name already in the registry, or a new one made (and registered) by `make`:
 * the metric sets can then be installed on a registry more than once without a clash.
 */
export function registeredOnce<M extends Metric>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}

/** `GET /metrics`: the registry in Prometheus' text format (no authentication, as API.md says). */
export function metricsRouter(registry: Registry): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const body = await registry.metrics();
    res.type(registry.contentType).send(body);
  });
  return router;
}
