/**
 * @module Tencent Cloud's errors as cairn's. The SDK throws a TencentCloudSDKHttpException: with
 * Tencent's `Error.Code` and `Message` (and the RequestId) when the API answered with an error,
 * with an HTTP status when the answer was not 200, with neither when no answer came. Codes by
 * Tencent's common error list: `AuthFailure.*` and `UnauthorizedOperation*` are refused
 * credentials; `RequestLimitExceeded*` is throttling (a 429 to cairn: wait, send again);
 * `InternalError*`, `ResourceUnavailable*`, `ResourceInsufficient*` and the
 * `*.InstanceOperationInProgress`-style "busy" codes pass; every other code is a refusal.
 */
import { VendorAuthError, VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { summarise } from '../kit/vendor-text.js';

/** What the SDK's exception carries. */
interface SdkException {
  message?: unknown;
  code?: unknown;
  httpCode?: unknown;
  requestId?: unknown;
}

/** Codes that pass with time: the service is busy, or the instance is still in an operation. */
const PASSING = [/^InternalError/, /^ResourceUnavailable/, /^ResourceInsufficient/, /^ResourceInUse/, /OperationInProgress$/, /^FailedOperation\.(?:Busy|Timeout)/];

/** The Tencent error code, when `error` is the SDK's exception for an API error. */
export function tencentCode(error: unknown): string | undefined {
  const code = (error as SdkException | undefined)?.code;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/** The cairn error for whatever the SDK threw; `where` starts the message (`tencent: run instances`). */
export function tencentError(error: unknown, where: string): Error {
  if (error instanceof VendorRejectedError || error instanceof VendorUnavailableError) return error;
  const sdk = (error ?? {}) as SdkException;
  const text = summarise(typeof sdk.message === 'string' ? sdk.message : String(error));
  const code = tencentCode(error);
  const requestId = typeof sdk.requestId === 'string' && sdk.requestId !== '' ? ` (RequestId ${sdk.requestId})` : '';
  if (code !== undefined) {
    const message = `${where}: ${code}: ${text}${requestId}`;
    if (/^AuthFailure/.test(code) || /^UnauthorizedOperation/.test(code)) return new VendorAuthError(message, { status: 401, cause: error });
    if (/^RequestLimitExceeded/.test(code)) return new VendorUnavailableError(message, { status: 429, cause: error });
    if (PASSING.some((pattern) => pattern.test(code))) return new VendorUnavailableError(message, { status: 503, cause: error });
    return new VendorRejectedError(message, { status: 400, cause: error, ...fieldOf(code) });
  }
  if (typeof sdk.httpCode === 'number') {
    const message = `${where}: HTTP ${sdk.httpCode} ${text}`;
    if (sdk.httpCode === 401 || sdk.httpCode === 403) return new VendorAuthError(message, { status: sdk.httpCode, cause: error });
    if (sdk.httpCode === 429 || sdk.httpCode >= 500) return new VendorUnavailableError(message, { status: sdk.httpCode, cause: error });
    return new VendorRejectedError(message, { status: sdk.httpCode, cause: error });
  }
  // No answer: refused connection, timeout, a closed address (the outbound guard).
  return new VendorUnavailableError(`${where}: no answer from Tencent Cloud: ${text}`, { cause: error });
}

/** The spec field a code names, when it names one. */
function fieldOf(code: string): { field?: string } {
  if (/InstanceType/i.test(code)) return { field: 'size' };
  if (/Zone|Region/i.test(code)) return { field: 'region' };
  if (/Image/i.test(code)) return { field: 'image' };
  return {};
}
