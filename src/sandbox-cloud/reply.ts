/**
 * @module How sandbox handlers answer: a handler returns a `Reply` (or throws a SandboxApiError),
 * and one place sends it — which is also where a "lost response" fault swaps the answer for a 502
 * after the write was applied.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { SandboxApiError, type ApiErrorBody } from './api-error.js';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Set by the fault middleware: apply the write, then answer 502 as if the response got lost. */
const LOST_RESPONSE = 'sandboxLostResponse';

export function markResponseLost(res: Response): void {
  res.locals[LOST_RESPONSE] = true;
}

function sendReply(res: Response, reply: Reply): void {
  if (res.locals[LOST_RESPONSE] === true) {
    const body: ApiErrorBody = {
      id: 'server_error',
      message: 'bad gateway: the response was lost on the way back (simulated fault; the request may have been applied)',
    };
    res.status(502).json(body);
    return;
  }
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.body === undefined) res.status(reply.status).end();
  else res.status(reply.status).json(reply.body);
}

/**
 * Wraps a handler as an express handler. Handlers are synchronous (the store is); one that must
 * wait on work off the event loop (hashing a password) returns a promise of its reply.
 */
export function route(handler: (req: Request) => Reply | Promise<Reply>): RequestHandler {
  return (req, res, next) => {
    let reply: Reply | Promise<Reply>;
    try {
      reply = handler(req);
    } catch (error) {
      next(error);
      return;
    }
    if (reply instanceof Promise) reply.then((answer) => sendReply(res, answer), next);
    else sendReply(res, reply);
  };
}

interface HttpishError {
  status?: unknown;
  type?: unknown;
  message?: unknown;
}

/** The one place errors become answers: SandboxApiError as given, body-parser errors as 400, others as 500. */
export const errorMiddleware: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  if (error instanceof SandboxApiError) {
    sendReply(res, { status: error.status, body: error.toBody(), headers: error.headers });
    return;
  }
  const httpish = (typeof error === 'object' && error !== null ? error : {}) as HttpishError;
  if (httpish.type === 'entity.parse.failed' || httpish.status === 400) {
    sendReply(res, { status: 400, body: { id: 'bad_request', message: `request body is not valid JSON: ${String(httpish.message)}` } });
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  sendReply(res, { status: 500, body: { id: 'server_error', message: `internal error: ${message}` } });
};
