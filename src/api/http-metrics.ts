/**
 * @module HTTP metrics: `http_request_duration_seconds` (histogram) and `http_requests_total`
 * (counter) by method, route template and status, recorded when each response finishes.
 */
import type { RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';
import { registeredOnce } from './metrics.js';
import { routeTemplate, trackRouteTemplate } from './route-template.js';

type HttpLabel = 'method' | 'route' | 'status';
const LABELS: HttpLabel[] = ['method', 'route', 'status'];

/**
 * The middleware recording every request: install it on the app before any router. Routes are
 * labelled by template (`/api/v1/servers/:id`; requests under `/v1` as `/api/v1`), requests
 * that matched no route as `unmatched`, so that no concrete URL becomes a label.
 */
export function httpMetrics(registry: Registry): RequestHandler {
  const duration = registeredOnce(
    registry,
    'http_request_duration_seconds',
    () =>
      new Histogram<HttpLabel>({
        name: 'http_request_duration_seconds',
        help: 'Time from receiving an HTTP request to finishing its response, by method, route template and status.',
        labelNames: LABELS,
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
  );
  const total = registeredOnce(
    registry,
    'http_requests_total',
    () =>
      new Counter<HttpLabel>({
        name: 'http_requests_total',
        help: 'HTTP requests answered, by method, route template and status.',
        labelNames: LABELS,
        registers: [registry],
      }),
  );
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    trackRouteTemplate(req);
    res.once('finish', () => {
      const labels = { method: req.method, route: routeTemplate(req), status: String(res.statusCode) };
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      total.inc(labels);
    });
    next();
  };
}
