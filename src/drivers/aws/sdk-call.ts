/**
 * @module One call through an AWS SDK client, the way every cairn vendor call goes: the
 * provider's rate budget first, then the SDK (its own retries off: `maxAttempts: 1`), with the
 * driver call's AbortSignal. AWS's answers are mapped to cairn's errors with AWS's own code and
 * message: throttling (`RequestLimitExceeded`, `Throttling`, …) pauses the whole provider and is
 * sent again with growing waits, ending as a VendorUnavailableError (status 429) within seconds
 * if it persists; 5xx, network failures and requests unanswered within the request timeout are sent again three times (every action cairn sends is
 * safe to repeat: RunInstances carries its ClientToken), then VendorUnavailableError; refused
 * credentials are a VendorAuthError; any other refusal a VendorRejectedError.
 */
import { outboundRefusal } from '../../net/guarded-fetch.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { abortable } from '../kit/abortable-sleep.js';
import type { RateBudget } from '../kit/rate-budget.js';

/** AWS's codes for refused credentials (EC2's and the other Query services'). */
const AUTH_CODES = new Set(['AuthFailure', 'UnauthorizedOperation', 'InvalidClientTokenId', 'SignatureDoesNotMatch', 'IncompleteSignature', 'InvalidAccessKeyId', 'ExpiredToken', 'AccessDenied', 'AccessDeniedException', 'OptInRequired']);

/** AWS's codes for throttling. */
const THROTTLING_CODES = new Set(['RequestLimitExceeded', 'Throttling', 'ThrottlingException', 'RequestThrottled', 'RequestThrottledException', 'TooManyRequestsException']);

/** Waits after a throttled call, in turn; after the last the call ends as a VendorUnavailableError. */
const THROTTLE_WAITS_MS = [250, 500, 1000, 2000];

/** Extra sends after a 5xx, a network failure or no answer in time (as cairn's other vendor clients). */
const SERVER_RETRIES = 3;

interface SdkError {
  name?: string;
  Code?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

export interface AwsCallContext {
  /** `aws ec2` or `aws rds`. */
  label: string;
  budget: RateBudget;
  /** The cap on one request (CAIRN_VENDOR_TIMEOUT_MS). */
  requestTimeoutMs: number;
  signal?: AbortSignal | undefined;
}

function codeOf(error: SdkError): string {
  return error.Code ?? error.name ?? 'Error';
}

/**
 * Whether the error is AWS's answer `code` (e.g. `InvalidInstanceID.NotFound`): as the SDK threw
 * it, or as cairn's mapped error carrying it as its cause.
 */
export function isAwsError(error: unknown, ...codes: string[]): boolean {
  const isCode = (e: unknown): boolean => typeof e === 'object' && e !== null && codes.includes(codeOf(e));
  return isCode(error) || (error instanceof Error && isCode(error.cause));
}

/** AWS's refusal as cairn's error, with AWS's code and message and what cairn was doing. */
export function mapAwsError(error: unknown, context: AwsCallContext, doing: string): Error {
  if (error instanceof VendorRejectedError || error instanceof VendorUnavailableError) return error;
  const refused = outboundRefusal(error);
  if (refused) return new VendorRejectedError(`${context.label}: ${doing}: ${refused.message}`, { field: 'endpoint', cause: error });
  const e = (error ?? {}) as SdkError;
  const code = codeOf(e);
  const status = e.$metadata?.httpStatusCode;
  const text = `${context.label}: ${doing}: ${code}: ${e.message ?? String(error)}`;
  if (AUTH_CODES.has(code)) return new VendorAuthError(text, { ...(status === undefined ? {} : { status }), cause: error });
  if (THROTTLING_CODES.has(code)) return new VendorUnavailableError(text, { status: 429, retryAfterMs: 1000, cause: error });
  if (status === undefined || status >= 500 || e.$fault === 'server') return new VendorUnavailableError(text, { ...(status === undefined ? {} : { status }), cause: error });
  return new VendorRejectedError(text, { status, cause: error });
}

/** Sends `send()` within the budget, following AWS's throttling and passing faults, mapping what it answers. */
export async function awsCall<T>(context: AwsCallContext, doing: string, send: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  let throttled = 0;
  let failed = 0;
  for (;;) {
    await context.budget.take(context.signal);
    const timeout = AbortSignal.timeout(context.requestTimeoutMs);
    try {
      return await send(context.signal ? AbortSignal.any([context.signal, timeout]) : timeout);
    } catch (error) {
      if (context.signal?.aborted) throw context.signal.reason ?? error;
      const mapped = timeout.aborted && !outboundRefusal(error)
        ? new VendorUnavailableError(`${context.label}: ${doing}: no answer within ${context.requestTimeoutMs} ms`, { cause: error })
        : mapAwsError(error, context, doing);
      if (!(mapped instanceof VendorUnavailableError)) throw mapped;
      if (mapped.status === 429) {
        const wait = THROTTLE_WAITS_MS[throttled++];
        if (wait === undefined) throw mapped;
        context.budget.pause(wait);
        await abortable(wait, context.signal);
      } else {
        if (failed++ >= SERVER_RETRIES) throw mapped;
        await abortable(100 * failed, context.signal);
      }
    }
  }
}
