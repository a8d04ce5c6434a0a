/**
 * @module Censors secret fields (passwords, tokens, credentials, secret headers, ...) at any depth
 * of the plain objects and arrays a log call is given, copying only what it changes: the caller's
 * objects are never modified. Much cheaper per line than pino's wildcard redact paths.
 */

/** Field names whose values are secret wherever they appear (compared in lower case). */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'password',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'credentials',
  'webhook_secret',
  'client_secret',
  'connection_string',
  'api_key',
]);

/** Header names whose values are secret, inside an object under a `headers` key. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/** Deeper than this, objects are left as they are (log lines are not that deep; cycles end here). */
const MAX_DEPTH = 8;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function scrub(value: unknown, censor: string, depth: number, inHeaders: boolean): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const list = value as unknown[];
    let copy: unknown[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      const scrubbed = scrub(item, censor, depth + 1, false);
      if (scrubbed !== item) (copy ??= list.slice())[i] = scrubbed;
    }
    return copy ?? list;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const lower = key.toLowerCase();
    const item = value[key];
    const scrubbed =
      SECRET_FIELDS.has(lower) || (inHeaders && SECRET_HEADERS.has(lower)) ? (item === undefined ? item : censor) : scrub(item, censor, depth + 1, lower === 'headers');
    if (scrubbed !== item) (copy ??= { ...value })[key] = scrubbed;
  }
  return copy ?? value;
}

/** `object` with every secret field censored, or `object` itself when it holds none. */
export function scrubSecrets<T extends object>(object: T, censor: string): T {
  return scrub(object, censor, 0, false) as T;
}
