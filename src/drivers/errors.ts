/**
 * @module Errors a driver throws, so that the reconciler can tell a passing fault (retry with
 * backoff, or after the vendor's Retry-After) from a request the vendor will never accept
 * (stall until the user changes the spec).
 */

export interface VendorErrorOptions {
  /** HTTP status the vendor answered, if any. */
  status?: number;
  /** The vendor asked us to wait this long (429 Retry-After). */
  retryAfterMs?: number;
  cause?: unknown;
}

/** The vendor failed in a way that may pass: 5xx, 429, a timeout, a refused connection. Retry. */
export class VendorUnavailableError extends Error {
  override readonly name: string = 'VendorUnavailableError';
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: VendorErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The vendor refused the request as it stands (4xx other than 429): retrying cannot help. */
export class VendorRejectedError extends Error {
  override readonly name: string = 'VendorRejectedError';
  readonly status: number | undefined;
  /** The spec field the vendor objected to, when known, e.g. `region`. */
  readonly field: string | undefined;
  constructor(message: string, options: VendorErrorOptions & { field?: string } = {}) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.field = options.field;
  }
}

/** The credentials were refused (401/403). */
export class VendorAuthError extends VendorRejectedError {
  override readonly name = 'VendorAuthError';
}

/**
 * A create's idempotency key was spent: the vendor answered it with what that key made before,
 * which has since been deleted (EC2 and Tencent answer a `ClientToken` with its instance even
 * once terminated). Nothing was made; the reconciler starts a new incarnation, with a new key.
 */
export class IdempotencyKeySpentError extends Error {
  override readonly name = 'IdempotencyKeySpentError';
}

/** The driver cannot do this here at all (e.g. an engine the host lacks). Said plainly, never faked. */
export class UnsupportedError extends Error {
  override readonly name = 'UnsupportedError';
}
