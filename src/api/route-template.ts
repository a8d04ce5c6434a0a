/**
 * @module The express route template a request matched (`/api/v1/servers/:id`), never its
 * concrete URL, for metric labels and logs; `/v1/...` aliases are named in their `/api/v1` form.
 */
import type { Request } from 'express';

/** What a request that matched no route is labelled. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Where a watched request keeps its route and the template seen when the route was set. */
const ROUTE = Symbol('cairn.route');
const TEMPLATE = Symbol('cairn.routeTemplate');

interface Watched {
  baseUrl: string;
  [ROUTE]?: unknown;
  [TEMPLATE]?: string;
}

/** Request prototypes (one per express app) whose `route` is watched. */
const watchedPrototypes = new WeakSet<object>();

function joinTemplate(baseUrl: string, routePath: unknown): string {
  const path = typeof routePath === 'string' ? routePath : String(routePath);
  let template = `${baseUrl}${path}`;
  if (template.length > 1 && template.endsWith('/')) template = template.slice(0, -1);
  if (template === '/v1' || template.startsWith('/v1/')) template = `/api${template}`;
  return template;
}

/**
 * Watches `req.route` on this request's prototype (the app's `request`, once per app; call it
 * in an app-level middleware): the router sets `req.route` when it picks a route, while
 * `req.baseUrl` is still the mount path of the router holding that route. Read later,
 * `req.baseUrl` may already be restored to the app's (an error passed on to an app-level error
 * handler leaves the router first). Nothing is added per request but two symbol properties.
 *
 * Mount paths are taken as matched: mount routers at fixed paths (`/api/v1`, `/v1`), not at
 * paths with parameters, whose values would otherwise show in the template. Routes of an
 * express sub-app (`app.use(otherApp)`) are read at the end instead, with the base URL then.
 */
export function trackRouteTemplate(req: Request): void {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto === null || watchedPrototypes.has(proto)) return;
  watchedPrototypes.add(proto);
  Object.defineProperty(proto, 'route', {
    configurable: true,
    get(this: Watched): unknown {
      return this[ROUTE];
    },
    set(this: Watched, value: unknown) {
      this[ROUTE] = value;
      const path = (value as { path?: unknown } | undefined)?.path;
      if (path !== undefined) this[TEMPLATE] = joinTemplate(this.baseUrl, path);
    },
  });
}

/** The template of the route the request matched, or `unmatched`. */
export function routeTemplate(req: Request): string {
  const tracked = (req as unknown as Watched)[TEMPLATE];
  if (tracked !== undefined) return tracked;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return path === undefined ? UNMATCHED_ROUTE : joinTemplate(req.baseUrl, path);
}
