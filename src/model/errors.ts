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
  override readonly name: string = 'ConflictError';
  constructor(message: string, readonly issues: FieldIssue[] = []) {
    super(message);
  }
}

export class PreconditionFailedError extends CairnError {
  readonly code = 'precondition_failed';
  override readonly name = 'PreconditionFailedError';
}

/** No credentials, or credentials that are not valid (expired, forged, revoked). */
export class UnauthorizedError extends CairnError {
  readonly code = 'unauthorized';
  override readonly name = 'UnauthorizedError';
}

/** Valid credentials whose role does not allow this. */
export class ForbiddenError extends CairnError {
  readonly code = 'forbidden';
  override readonly name = 'ForbiddenError';
}

/** Too many attempts; try again after `retryAfterSeconds`. */
export class RateLimitedError extends CairnError {
  readonly code = 'rate_limited';
  override readonly name = 'RateLimitedError';
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
}

/** The request itself is broken: not JSON, a bad query parameter's syntax, a missing header. */
export class MalformedRequestError extends CairnError {
  readonly code = 'malformed_request';
  override readonly name = 'MalformedRequestError';
}

/** A vendor refused or failed what cairn asked of it on the user's behalf. */
export class ProviderError extends CairnError {
  readonly code = 'provider_error';
  override readonly name = 'ProviderError';
}

/** A body in a format the route does not take. */
export class UnsupportedMediaTypeError extends CairnError {
  readonly code = 'unsupported_media_type';
  override readonly name = 'UnsupportedMediaTypeError';
}

/** A request body larger than the route takes (413). */
export class PayloadTooLargeError extends CairnError {
  readonly code = 'payload_too_large';
  override readonly name = 'PayloadTooLargeError';
}

/** A create of a name that is taken (Kubernetes' AlreadyExists); a conflict everywhere else. */
export class AlreadyExistsError extends ConflictError {
  override readonly name = 'AlreadyExistsError';
}

/** A create past what the tenant's plan allows (API.md "Billing": 402; 403 on the Kubernetes API). */
export class QuotaExceededError extends CairnError {
  readonly code = 'quota_exceeded';
  override readonly name = 'QuotaExceededError';
}
