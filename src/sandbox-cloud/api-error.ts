/**
 * @module The sandbox API's errors, in DigitalOcean's shape: `{ id, message }`, plus `field`
 * when a request names something the vendor does not accept.
 */

export type ApiErrorId =
  | 'bad_request'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'unprocessable_entity'
  | 'rate_limited'
  | 'server_error';

export interface ApiErrorBody {
  id: ApiErrorId;
  message: string;
  field?: string;
}

/** Thrown by route handlers; the error middleware turns it into a JSON answer. */
export class SandboxApiError extends Error {
  override readonly name = 'SandboxApiError';
  constructor(
    readonly status: number,
    readonly id: ApiErrorId,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): ApiErrorBody {
    return this.field === undefined ? { id: this.id, message: this.message } : { id: this.id, message: this.message, field: this.field };
  }
}

export function notFound(what: string, id: string): SandboxApiError {
  return new SandboxApiError(404, 'not_found', `${what} "${id}" does not exist`);
}

export function unprocessable(field: string, message: string): SandboxApiError {
  return new SandboxApiError(422, 'unprocessable_entity', message, field);
}
