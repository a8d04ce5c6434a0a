/**
 * @module The three kinds of reconcile failure (after Flux): a stall (the user must change
 * something; not retried until the spec changes), a wait (retried after a known delay, e.g. for
 * a dependency), and anything else (retried with per-item exponential backoff). Each carries a
 * reason for the resource's conditions and events.
 */
import { UnsupportedError, VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../drivers/errors.js';
import { DeadlineExceededError } from './call-deadlines.js';

export class StallError extends Error {
  override readonly name = 'StallError';
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

export class WaitError extends Error {
  override readonly name = 'WaitError';
  /**
   * @param waitsFor the resource whose readiness ends the wait (dependencyKey), when there is
   * one: the controller wakes the waiter when that one becomes Ready, not on every other's.
   * @param failed what it waits for has failed, so it shows its kind's failed phase meanwhile.
   */
  constructor(readonly reason: string, message: string, readonly retryAfterMs: number, readonly waitsFor?: string, readonly failed = false) {
    super(message);
  }
}

export interface ClassifiedFailure {
  kind: 'stall' | 'wait' | 'retry';
  reason: string;
  message: string;
  /** For waits: the delay asked for; for retries: a lower bound (the vendor's Retry-After). */
  retryAfterMs: number;
  /** For waits on one resource: its dependencyKey. */
  waitsFor?: string;
  /** A wait on something that failed: the resource shows its failed phase meanwhile. */
  failed?: boolean;
}

export const REASON_PROVIDER_ERROR = 'ProviderError';
export const REASON_VENDOR_REJECTED = 'VendorRejected';
export const REASON_CREDENTIALS_REFUSED = 'CredentialsRefused';
export const REASON_UNSUPPORTED = 'Unsupported';
export const REASON_RECONCILE_ERROR = 'ReconcileError';
export const REASON_DEADLINE_EXCEEDED = 'DeadlineExceeded';

export function classifyFailure(error: unknown): ClassifiedFailure {
  if (error instanceof StallError) return { kind: 'stall', reason: error.reason, message: error.message, retryAfterMs: 0 };
  if (error instanceof WaitError) {
    return {
      kind: 'wait', reason: error.reason, message: error.message, retryAfterMs: error.retryAfterMs, failed: error.failed,
      ...(error.waitsFor === undefined ? {} : { waitsFor: error.waitsFor }),
    };
  }
  if (error instanceof VendorAuthError) return { kind: 'stall', reason: REASON_CREDENTIALS_REFUSED, message: error.message, retryAfterMs: 0 };
  if (error instanceof VendorRejectedError) return { kind: 'stall', reason: REASON_VENDOR_REJECTED, message: error.message, retryAfterMs: 0 };
  if (error instanceof UnsupportedError) return { kind: 'stall', reason: REASON_UNSUPPORTED, message: error.message, retryAfterMs: 0 };
  if (error instanceof DeadlineExceededError) return { kind: 'retry', reason: REASON_DEADLINE_EXCEEDED, message: error.message, retryAfterMs: 0 };
  if (error instanceof VendorUnavailableError) {
    return { kind: 'retry', reason: REASON_PROVIDER_ERROR, message: error.message, retryAfterMs: error.retryAfterMs ?? 0 };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'retry', reason: REASON_RECONCILE_ERROR, message, retryAfterMs: 0 };
}

/** Prefixes what was being done: `observe failed: ...` (crossplane-runtime's habit). */
export async function doing<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof Error && !(error instanceof StallError) && !(error instanceof WaitError)) {
      error.message = `${what} failed: ${error.message}`;
    }
    throw error;
  }
}
