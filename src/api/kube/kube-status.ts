/**
 * @module Errors on cairn's Kubernetes endpoint as Kubernetes `Status` objects (what kubectl
 * prints as "Error from server (Reason): message"): the same classification as the REST API's
 * problem documents (problem.ts), with Kubernetes' reasons and field causes.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AlreadyExistsError, type ErrorCode, type FieldIssue } from '../../model/errors.js';
import { classifyError } from '../problem.js';

const STATUS: Record<ErrorCode, { code: number; reason: string }> = {
  validation_failed: { code: 422, reason: 'Invalid' },
  malformed_request: { code: 400, reason: 'BadRequest' },
  unauthorized: { code: 401, reason: 'Unauthorized' },
  forbidden: { code: 403, reason: 'Forbidden' },
  not_found: { code: 404, reason: 'NotFound' },
  conflict: { code: 409, reason: 'Conflict' },
  // A stale resourceVersion is a conflict in Kubernetes, never a 412.
  precondition_failed: { code: 409, reason: 'Conflict' },
  payload_too_large: { code: 413, reason: 'RequestEntityTooLarge' },
  unsupported_media_type: { code: 415, reason: 'UnsupportedMediaType' },
  rate_limited: { code: 429, reason: 'TooManyRequests' },
  quota_exceeded: { code: 403, reason: 'Forbidden' },
  provider_error: { code: 500, reason: 'InternalError' },
  internal: { code: 500, reason: 'InternalError' },
};

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: Array<{ reason: string; message: string; field: string }> };
  code: number;
}

/** What the request was about, for the Status's details (kubectl names it in messages). */
export interface StatusSubject {
  name?: string;
  group?: string;
  kind?: string;
}

function causes(issues: FieldIssue[] | undefined): Array<{ reason: string; message: string; field: string }> | undefined {
  if (!issues || issues.length === 0) return undefined;
  return issues.map((i) => ({ reason: 'FieldValueInvalid', message: i.message, field: i.pointer.slice(1).replaceAll('/', '.') }));
}

/** The Status object of a thrown error. */
export function statusOf(error: unknown, subject: StatusSubject = {}): KubeStatus {
  const problem = classifyError(error);
  const { code, reason } = error instanceof AlreadyExistsError ? { code: 409, reason: 'AlreadyExists' } : STATUS[problem.code];
  const fieldCauses = causes(problem.issues);
  const details = { ...subject, ...(fieldCauses ? { causes: fieldCauses } : {}) };
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: problem.detail, reason, ...(Object.keys(details).length > 0 ? { details } : {}), code };
}

export function sendStatus(res: Response, status: KubeStatus): void {
  if (status.code === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="cairn"');
  res.status(status.code).type('application/json').send(JSON.stringify(status));
}

/** The error handler of the Kubernetes endpoint: every failure is a Status. */
export function kubeStatusHandler(onInternal: (error: unknown, req: Request) => void): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const status = statusOf(error, (res.locals.kubeSubject as StatusSubject | undefined) ?? {});
    if (status.code === 500) onInternal(error, req);
    sendStatus(res, status);
  };
}
