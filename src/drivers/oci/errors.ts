/**
 * @module One OCI SDK call as a cairn driver call: it runs with the call's AbortSignal in reach
 * of the http client (http-client.ts), and whatever the SDK throws becomes cairn's error
 * (src/drivers/errors.ts) with OCI's own code and message and the `opc-request-id` support asks
 * for: 429 and 5xx → VendorUnavailableError (the reconciler comes back), 401/403 (and 404
 * `NotAuthorizedOrNotFound` on a create) → VendorAuthError, other 4xx → VendorRejectedError, an
 * endpoint the outbound guard closes → VendorRejectedError on `endpoint`, no answer →
 * VendorUnavailableError.
 */
import { OciError } from 'oci-common';
import { outboundRefusal } from '../../net/guarded-fetch.js';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { describeCause, summarise } from '../kit/vendor-text.js';
import { ociCallContext, type OciCallContext } from './http-client.js';

export interface OciCallOptions {
  signal?: AbortSignal | undefined;
  /** Statuses answered with `undefined` instead of an error (404 for observe and delete). */
  accept?: readonly number[];
}

/** Runs `call` as `oci: <doing>`; returns undefined for an accepted status. */
export async function ociCall<T>(doing: string, call: () => Promise<T>, options: OciCallOptions = {}): Promise<T | undefined> {
  const context: OciCallContext = { signal: options.signal };
  const where = `oci: ${doing}`;
  try {
    return await ociCallContext.run(context, call);
  } catch (error) {
    if (error instanceof OciError || isServiceError(error)) {
      const status = (error as OciError).statusCode;
      if (options.accept?.includes(status)) return undefined;
      throw serviceError(where, error as OciError);
    }
    const refused = outboundRefusal(context.transportError) ?? outboundRefusal(error);
    if (refused) throw new VendorRejectedError(`${where}: ${refused.message}`, { field: 'endpoint', cause: error });
    if (options.signal?.aborted) throw new VendorUnavailableError(`${where}: abandoned: ${String((options.signal.reason as Error | undefined)?.message ?? options.signal.reason)}`, { cause: error });
    if (context.timedOut) throw new VendorUnavailableError(`${where}: no answer within the request timeout`, { cause: error });
    if (error instanceof VendorRejectedError || error instanceof VendorUnavailableError) throw error;
    const cause = context.transportError ?? error;
    throw new VendorUnavailableError(`${where}: request failed: ${describeCause(cause instanceof Error ? cause : new Error(messageOf(cause)))}`, { cause });
  }
}

/** Like `ociCall`, for calls with no accepted status: never undefined. */
export async function ociRequired<T>(doing: string, call: () => Promise<T>, options: { signal?: AbortSignal | undefined } = {}): Promise<T> {
  return (await ociCall(doing, call, options)) as T;
}

/** The SDK's retrier turns an answer into an OciError; an error thrown before any answer is a plain object. */
function isServiceError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && typeof (error as OciError).statusCode === 'number' && typeof (error as OciError).serviceCode === 'string';
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  return String(error);
}

function serviceError(where: string, error: OciError): Error {
  const status = error.statusCode;
  const request = error.opcRequestId ? ` (opc-request-id ${error.opcRequestId})` : '';
  const text = `${where}: ${status} ${summarise(error.serviceCode)}: ${summarise(error.message)}${request}`;
  if (status === 429 || status >= 500 || status === 409 && error.serviceCode === 'IncorrectState') return new VendorUnavailableError(text, { status, cause: error });
  if (status === 401 || status === 403) return new VendorAuthError(text, { status, cause: error });
  return new VendorRejectedError(text, { status, cause: error });
}
