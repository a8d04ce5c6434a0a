/**
 * @module The one error hierarchy of cairn. Each class names the `code` of API.md's problem
 * documents; the API maps them to HTTP in one place and the CLI prints their messages.
 */

export type ErrorCode =
  | 'validation_failed'
  | 'malformed_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'provider_error'
  | 'internal';

/** One precise complaint about an input, pointing at the field (JSON pointer). */
export interface FieldIssue {
  pointer: string;
  message: string;
}

export abstract class CairnError extends Error {
  abstract readonly code: ErrorCode;
}

export class ValidationError extends CairnError {
  readonly code = 'validation_failed';
  override readonly name = 'ValidationError';
  constructor(message: string, readonly issues: FieldIssue[] = []) {
    super(message);
  }
}

export class NotFoundError extends CairnError {
  readonly code = 'not_found';
  override readonly name = 'NotFoundError';
}

/** Someone else owns the resource, or it is in a state that forbids the change. */
export class ConflictError extends CairnError {
  readonly code = 'conflict';
  override readonly name = 'ConflictError';
  constructor(message: string, readonly issues: FieldIssue[] = []) {
    super(message);
  }
}

export class PreconditionFailedError extends CairnError {
  readonly code = 'precondition_failed';
  override readonly name = 'PreconditionFailedError';
}
