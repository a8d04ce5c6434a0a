/**
 * @module `GET /v1/apps/{id}/logs?tail=&since=`: the newest lines the sandbox recorded for an app
 * (default 100, at most 1000), only those at or after `since` when given, oldest first.
 */
import { Router, type Request } from 'express';
import { notFound, unprocessable } from '../api-error.js';
import { pathId } from '../body-fields.js';
import { route } from '../reply.js';
import type { RouteContext } from './route-context.js';

export const DEFAULT_TAIL = 100;
export const MAX_TAIL = 1000;

export interface LogLineBody {
  ts: string;
  stream: 'stdout' | 'stderr' | 'system';
  line: string;
}

function readTail(req: Request): number {
  const value: unknown = req.query['tail'];
  if (value === undefined) return DEFAULT_TAIL;
  const tail = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(tail) || tail < 1 || tail > MAX_TAIL) throw unprocessable('tail', `tail must be an integer from 1 to ${MAX_TAIL}`);
  return tail;
}

function readSince(req: Request): number | undefined {
  const value: unknown = req.query['since'];
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw unprocessable('since', 'since must be an RFC 3339 timestamp, e.g. 2025-01-31T12:00:00Z');
  return ms;
}

export function appLogRoutes(ctx: RouteContext): Router {
  const router = Router();
  const { store } = ctx;

  router.get('/v1/apps/:id/logs', route((req) => {
    const id = pathId(req);
    const tail = readTail(req);
    const sinceMs = readSince(req);
    if (!store.apps.get(id)) throw notFound('app', id);
    const rows = store.appLogs.read(id, { nowMs: ctx.now(), tail, sinceMs });
    const logs: LogLineBody[] = rows.map((r) => ({ ts: new Date(r.ts_ms).toISOString(), stream: r.stream, line: r.line }));
    return { status: 200, body: { logs } };
  }));

  return router;
}
