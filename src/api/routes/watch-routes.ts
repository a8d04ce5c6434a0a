/**
 * @module `GET /watch`: the dashboard's live feed of the tenant's providers, servers, databases,
 * apps and git sources as server-sent events (src/api/watch-stream.ts), read with the usual
 * bearer header. `?kinds=` narrows it; `Last-Event-ID` resumes it.
 */
import { Router, type Request } from 'express';
import { ValidationError } from '../../model/errors.js';
import { allowed } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { queryText } from '../pagination.js';
import { WATCH_KINDS, type WatchKind } from '../watch-records.js';
import { DEFAULT_DASHBOARD_WATCH_TIMING, serveDashboardWatch, type DashboardWatchTiming } from '../watch-stream.js';

function watchKinds(req: Request): WatchKind[] {
  const text = queryText(req, 'kinds');
  if (text === undefined) return [...WATCH_KINDS];
  const names = text.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const unknown = names.filter((n) => !(WATCH_KINDS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new ValidationError(`kinds: ${names.length === 0 ? 'name at least one' : `unknown ${unknown.join(', ')}`}; choose from ${WATCH_KINDS.join(', ')}`, [
      { pointer: '/kinds', message: `a comma-separated list of ${WATCH_KINDS.join(', ')}` },
    ]);
  }
  return [...new Set(names)] as WatchKind[];
}

function lastEventId(req: Request): number | undefined {
  const header = req.get('Last-Event-ID');
  if (header === undefined || header.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(header.trim())) {
    throw new ValidationError('Last-Event-ID: not an id this stream sent (a whole number)', [{ pointer: '/Last-Event-ID', message: 'a whole number' }]);
  }
  return Number(header.trim());
}

export function watchRoutes(deps: ApiDeps, timing: DashboardWatchTiming = DEFAULT_DASHBOARD_WATCH_TIMING): Router {
  const router = Router();
  router.get('/watch', (req, res) => {
    const principal = allowed(res, 'read');
    serveDashboardWatch(req, res, deps.store, { tenant: principal.tenant, kinds: watchKinds(req), lastEventId: lastEventId(req) }, timing);
  });
  return router;
}
