/**
 * @module Errors as RFC 9457 problem documents: the one place where cairn's error classes
 * become HTTP statuses. Every 4xx and 5xx the API sends goes through here.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { CairnError, RateLimitedError, type ErrorCode, type FieldIssue } from '../model/errors.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../drivers/errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_failed: 422,
  malformed_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota_exceeded: 402,
  provider_error: 502,
  internal: 500,
};

const TITLE_BY_CODE: Record<ErrorCode, string> = {
  validation_failed: 'The request is not valid',
  malformed_request: 'The request is malformed',
  unauthorized: 'Authentication is required',
  forbidden: 'Not allowed',
  not_found: 'Not found',
  conflict: 'Conflict',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  quota_exceeded: 'Quota exceeded',
  provider_error: 'The provider failed',
  internal: 'Internal error',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldIssue[];
  request_id?: string;
}

/** The problem document for `code` (its status unless `status` overrides it, e.g. 503 for a part not configured). */
export function problemDocument(code: ErrorCode, detail: string, options: { issues?: FieldIssue[]; requestId?: unknown; status?: number } = {}): Problem {
  return {
    type: `https://cairn.dev/problems/${code.replaceAll('_', '-')}`,
    title: TITLE_BY_CODE[code],
    status: options.status ?? STATUS_BY_CODE[code],
    detail,
    code,
    ...(options.issues && options.issues.length > 0 ? { errors: options.issues } : {}),
    ...(typeof options.requestId === 'string' ? { request_id: options.requestId } : {}),
  };
}

export function sendProblem(req: Request, res: Response, code: ErrorCode, detail: string, issues?: FieldIssue[], status?: number): void {
  const body = problemDocument(code, detail, { requestId: (req as { id?: unknown }).id, ...(issues ? { issues } : {}), ...(status !== undefined ? { status } : {}) });
  if (code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer realm="cairn"');
  res.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** body-parser's errors carry a `type` and a `status`. */
interface BodyParserError {
  type?: unknown;
  status?: unknown;
  limit?: unknown;
}

function fromBodyParser(error: BodyParserError): { code: ErrorCode; detail: string } | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return { code: 'payload_too_large', detail: 'the request body is larger than 1 MiB' };
    case 'entity.parse.failed':
      return { code: 'malformed_request', detail: `the request body is not valid JSON: ${(error as Error).message}` };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { code: 'unsupported_media_type', detail: (error as Error).message };
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return { code: 'malformed_request', detail: (error as Error).message };
    default:
      return undefined;
  }
}

/** What a thrown error means to an API client; anything unrecognised is a 500 without details. */
export function classifyError(error: unknown): { code: ErrorCode; detail: string; issues?: FieldIssue[]; retryAfterSeconds?: number } {
  if (error instanceof RateLimitedError) return { code: error.code, detail: error.message, retryAfterSeconds: error.retryAfterSeconds };
  if (error instanceof CairnError) {
    const issues = (error as { issues?: FieldIssue[] }).issues;
    return { code: error.code, detail: error.message, ...(issues ? { issues } : {}) };
  }
  if (error instanceof VendorAuthError || error instanceof VendorRejectedError || error instanceof VendorUnavailableError) {
    return { code: 'provider_error', detail: error.message };
  }
  const parsed = typeof error === 'object' && error !== null ? fromBodyParser(error) : undefined;
  if (parsed) return parsed;
  return { code: 'internal', detail: 'an internal error occurred; the request id identifies it in the server log' };
}

export function problemHandler(onInternal: (error: unknown, req: Request) => void): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const problem = classifyError(error);
    if (problem.code === 'internal') onInternal(error, req);
    if (problem.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(problem.retryAfterSeconds))));
    sendProblem(req, res, problem.code, problem.detail, problem.issues);
  };
}

/** The answer for a path no route serves. */
export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(req, res, 'not_found', `no route serves ${req.method} ${req.path}`);
};
