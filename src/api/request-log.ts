/**
 * @module The request log (pino-http): one line per request with its method, route template,
 * path, status and duration, never its body, headers or query string; and the request id,
 * taken from a sane `X-Request-Id` or generated, echoed on the response and kept on `req.id`.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { pino, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
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
  return typeof req.id === 'string' || typeof req.id === 'number' ? String(req.id) : '';
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

function summary(req: Request, res: Response, durationMs: unknown): RequestSummary {
  return { method: req.method, route: routeTemplate(req), path: pathOf(req), status: res.statusCode, duration_ms: Number(durationMs) };
}

/**
 * The middleware: install it on the app first, before the metrics and the routers. Handlers can
 * log through `req.log` (its lines carry `request_id`); an error middleware that sets
 * `res.err = error` has the error logged with the request's line.
 */
export function requestLog(logger: Logger, options: RequestLogOptions = {}): RequestHandler {
  const quiet = new Set(options.quietPaths ?? DEFAULT_QUIET_PATHS);
  const log = pinoHttp<Request, Response>({
    logger,
    genReqId: (req, res) => {
      const id = requestIdFor(req.headers['x-request-id']);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customAttributeKeys: { reqId: 'request_id', responseTime: 'duration_ms' },
    // Bind only the request id to the loggers handlers get; the one line per request says the rest.
    quietReqLogger: true,
    quietResLogger: true,
    wrapSerializers: false,
    serializers: { req: (req: Request) => ({ method: req.method }), err: pino.stdSerializers.err },
    customLogLevel: (req, res, error) => {
      if (error || res.statusCode >= 500) return 'error';
      return res.statusCode < 400 && quiet.has(pathOf(req)) ? 'silent' : 'info';
    },
    customSuccessObject: (req, res, values: { duration_ms?: unknown }) => summary(req, res, values.duration_ms),
    customErrorObject: (req, res, error, values: { duration_ms?: unknown }) => ({ ...summary(req, res, values.duration_ms), err: error }),
    customSuccessMessage: (req, res) => `${req.method} ${routeTemplate(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${routeTemplate(req)} ${res.statusCode} failed`,
  });
  return (req, res, next) => {
    trackRouteTemplate(req);
    log(req, res, next);
  };
}
