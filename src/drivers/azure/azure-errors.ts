/**
 * @module The Azure SDK's errors as cairn's driver errors, with Azure's own code and message:
 * ARM answers `{error:{code,message}}`, which the SDK raises as a RestError (statusCode, code);
 * the identity library raises an AuthenticationError with Entra's `error_description`. A 429 or
 * 5xx, a timeout or a dropped connection passes (VendorUnavailableError, after Retry-After); a
 * refused client secret or token is a VendorAuthError; an endpoint the outbound guard closes,
 * and anything else Azure refuses, a VendorRejectedError.
 */
import { AuthenticationError } from '@azure/identity';
import { isRestError } from '@azure/core-rest-pipeline';
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { parseRetryAfter, summarise } from '../kit/vendor-text.js';

const OUTBOUND_REFUSED = 'ERR_CAIRN_OUTBOUND_REFUSED';

/** The outbound guard's refusal somewhere in the chain (the SDKs keep its code, or its message). */
function refusal(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === OUTBOUND_REFUSED || current.name === 'OutboundRefusedError') return current.message;
    // The identity library keeps only the text of what failed under it.
    const match = /cairn does not connect to [^]*/.exec(current.message);
    if (match) return match[0];
  }
  return undefined;
}

/** Any error from an Azure SDK call, as cairn's error; `where` says what was being done (`azure: create virtual machine "web-1"`). */
export function azureError(error: unknown, where: string): Error {
  if (error instanceof VendorRejectedError || error instanceof VendorUnavailableError) return error;
  const refused = refusal(error);
  if (refused !== undefined) return new VendorRejectedError(`${where}: ${summarise(refused)}`, { field: 'endpoint', cause: error });
  if (error instanceof AuthenticationError) {
    const status = error.statusCode;
    const said = error.errorResponse.errorDescription || error.errorResponse.error || error.message;
    const text = `${where}: Entra refused the service principal (${status} ${error.errorResponse.error}): ${summarise(said)}`;
    if (status === 400 || status === 401 || status === 403) return new VendorAuthError(text, { status, cause: error });
    return new VendorUnavailableError(`${where}: Entra's token endpoint failed (${status}): ${summarise(said)}`, { status, cause: error });
  }
  if (isRestError(error)) {
    const status = error.statusCode;
    const text = `${where}: ${status ?? 'no answer'} ${error.code ?? ''} ${summarise(error.message)}`.replace(/ {2,}/g, ' ');
    if (status === undefined) return new VendorUnavailableError(text, { cause: error });
    if (status === 429) return new VendorUnavailableError(text, { status, retryAfterMs: parseRetryAfter(error.response?.headers.get('retry-after') ?? null), cause: error });
    if (status >= 500 || status === 408) return new VendorUnavailableError(text, { status, cause: error });
    if (status === 401 || status === 403) return new VendorAuthError(text, { status, cause: error });
    return new VendorRejectedError(text, { status, cause: error });
  }
  if (error instanceof Error && error.name === 'AuthenticationRequiredError') {
    // What Entra said (AADSTS code and description) is inside the identity library's message.
    const said = /Description: (AADSTS\d+: [^]*?)(?: Trace ID:|$)/.exec(error.message)?.[1] ?? error.message;
    return new VendorAuthError(`${where}: Entra refused the service principal: ${summarise(said)}`, { cause: error });
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'CredentialUnavailableError')) {
    return new VendorUnavailableError(`${where}: ${summarise(error.message)}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new VendorUnavailableError(`${where}: ${summarise(message)}`, { cause: error });
}

/** True for Azure's "not found" (the resource, or its resource group). */
export function isNotFound(error: unknown): boolean {
  return isRestError(error) && error.statusCode === 404;
}

/** Runs one SDK call, its error mapped. */
export async function azureCall<T>(where: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw azureError(error, where);
  }
}
