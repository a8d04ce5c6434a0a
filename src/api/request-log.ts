/**
 * @module The request log: one line per request with its method, route template,
 * path, status and duration, never its body, headers or query string; and the request id,
 * taken from a sane `X-Request-Id` or generated, echoed on the response and kept on `req.id`.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { routeTemplate, trackRouteTemplate } from './route-template.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Ids a client may choose: short, and nothing that could forge a log line or a header. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Probes and scrapes: logged only when they fail (status 400 and above). */
export const DEFAULT_QUIET_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

export interface RequestLogOptions {
  quietPaths?: readonly string[];
}

/** The client's `X-Request-Id` when it is sane (≤ 128 of `A-Za-z0-9._-`), else a new UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** The request id `requestLog` gave this request (for error bodies and log lines). */
export function requestIdOf(req: Request): string {
  return req.id ?? '';
}

function pathOf(req: Request): string {
  const url = req.originalUrl || req.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

interface RequestSummary {
  method: string;
  route: string;
  path: string;
  status: number;
  duration_ms: number;
}

function summary(req: Request, res: Response, durationMs: number): RequestSummary {
  return { method: req.method, route: routeTemplate(req), path: pathOf(req), status: res.statusCode, duration_ms: durationMs };
}

/**
 * The middleware: install it on the app first, before the metrics and the routers. Handlers can
 * log through `req.log` (its lines carry `request_id`; made on first use); an error middleware
 * that sets `res.err = error` has the error logged with the request's line. One line per request
 * when the response is finished (or the client went away first), written by the root logger:
 * nothing else is made per request, which is what keeps this cheap on the hot path.
 */
export function requestLog(logger: Logger, options: RequestLogOptions = {}): RequestHandler {
  const quiet = new Set(options.quietPaths ?? DEFAULT_QUIET_PATHS);
  return (req, res, next) => {
    trackRouteTemplate(req);
    const started = performance.now();
    const id = requestIdFor(req.headers['x-request-id']);
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (child ??= logger.child({ request_id: id })) });
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      const aborted = !res.writableFinished;
      const error = res.err;
      if (error !== undefined || res.statusCode >= 500) {
        logger.error({ request_id: id, ...summary(req, res, durationMs), err: error }, `${req.method} ${routeTemplate(req)} ${res.statusCode} failed`);
      } else if (aborted) {
        logger.warn({ request_id: id, ...summary(req, res, durationMs), aborted: true }, `${req.method} ${routeTemplate(req)} aborted by the client`);
      } else if (res.statusCode >= 400 || !quiet.has(pathOf(req))) {
        logger.info({ request_id: id, ...summary(req, res, durationMs) }, `${req.method} ${routeTemplate(req)} ${res.statusCode}`);
      }
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id `requestLog` gave it. */
    id?: string;
    /** A logger whose lines carry the request id (set by `requestLog`). */
    log: Logger;
  }
  interface ServerResponse {
    /** An error to log with the request's line (set by an error middleware). */
    err?: Error;
  }
}
