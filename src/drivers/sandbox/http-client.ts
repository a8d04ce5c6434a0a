/**
 * @module The sandbox vendor's JSON client: the vendor kit's client (src/drivers/kit/vendor-http.ts:
 * outbound guard, per-request timeout, the call's signal, one mapping of what went wrong to
 * cairn's vendor errors) with a bearer token and the sandbox's error shape `{ message, field }`.
 */
import { VendorHttpClient, type VendorErrorText } from '../kit/vendor-http.js';

export interface SandboxHttpClientOptions {
  /** e.g. http://127.0.0.1:9100 */
  baseUrl: string;
  token: string;
  requestTimeoutMs: number;
  /** Prefix of every error message (default `sandbox`). */
  label?: string;
  /** The base URL is cairn's own (the in-process sandbox), not a tenant's: no outbound guard. */
  trusted?: boolean;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** What is being done, for error messages: `create server "web-1"`. */
  doing: string;
  /** Non-2xx statuses returned to the caller instead of thrown (e.g. 404 for observe/delete). */
  accept?: readonly number[];
  /** The driver call's signal (its deadline, cairn stopping): aborts the request when it fires. */
  signal?: AbortSignal | undefined;
}

export interface HttpAnswer {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/** The sandbox's error body: `{ "message", "field" }`. */
function readSandboxError(body: unknown): VendorErrorText | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record['message'] !== 'string') return undefined;
  return typeof record['field'] === 'string' ? { message: record['message'], field: record['field'] } : { message: record['message'] };
}

/** The sandbox's API through the vendor kit's client, sending nothing twice: the reconciler does the retrying. */
export class SandboxHttpClient {
  private readonly client: VendorHttpClient;

  constructor(options: SandboxHttpClientOptions) {
    this.client = new VendorHttpClient({
      label: options.label ?? 'sandbox',
      baseUrl: options.baseUrl,
      authorize: () => ({ authorization: `Bearer ${options.token}` }),
      readError: readSandboxError,
      requestTimeoutMs: options.requestTimeoutMs,
      retries: 0,
      ...(options.trusted ? { trusted: true } : {}),
    });
  }

  /** Sends one request; any non-2xx status not in `accept` is thrown as a vendor error. */
  async call(call: HttpCall): Promise<HttpAnswer> {
    const { status, body } = await this.client.call({ ...call, ...(call.signal ? { signal: call.signal } : {}) });
    return { status, body };
  }
}
