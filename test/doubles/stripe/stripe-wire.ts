/**
 * @module Stripe's wire format for the Stripe double: request parameters in bracket notation
 * (`metadata[tenant]=x`, `line_items[0][price]=p`, `expand[]=customer`) as sent in form bodies
 * and query strings, Stripe's error body, and readers that refuse a bad parameter naming it.
 */

export type StripeParam = string | StripeParam[] | { [key: string]: StripeParam };
export type StripeParams = { [key: string]: StripeParam };

/** An answer in Stripe's error shape: `{ error: { type, message, code?, param? } }`. */
export class StripeRequestError extends Error {
  constructor(
    readonly status: number,
    readonly type: 'invalid_request_error' | 'idempotency_error' | 'api_error' | 'card_error',
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
  }

  body(): { error: Record<string, string> } {
    const error: Record<string, string> = { type: this.type, message: this.message };
    if (this.code) error.code = this.code;
    if (this.param) error.param = this.param;
    return { error };
  }
}

export function invalidParam(param: string, message: string): StripeRequestError {
  return new StripeRequestError(400, 'invalid_request_error', message, 'parameter_invalid', param);
}

export function missingParam(param: string): StripeRequestError {
  return new StripeRequestError(400, 'invalid_request_error', `Missing required param: ${param}.`, 'parameter_missing', param);
}

/** Stripe's 404 for an id it does not hold (`resource_missing`). */
export function noSuch(kind: string, id: string, param?: string): StripeRequestError {
  return new StripeRequestError(param ? 400 : 404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param);
}

/** `a[b][0]` → `['a', 'b', '0']`; `a[]` → `['a', '']`. Throws on a key that is not bracket notation. */
function keyPath(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) throw invalidParam(key, `Invalid parameter name '${key}': expected name[key][...] bracket notation.`);
  const rest = match[2] ?? '';
  return [match[1] ?? '', ...[...rest.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? '')];
}

type Tree = { [key: string]: Tree | string };

/** Parses `application/x-www-form-urlencoded` text (a body or a query string) into nested params; objects whose keys are all indices become arrays. */
export function parseStripeParams(text: string): StripeParams {
  const root: Tree = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const path = keyPath(rawKey);
    let node = root;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i] === '' ? String(Object.keys(node).length) : (path[i] ?? '');
      const last = i === path.length - 1;
      const existing = node[segment];
      if (last) {
        if (typeof existing === 'object') throw invalidParam(rawKey, `Parameter '${rawKey}' is given both as a value and as an object.`);
        node[segment] = value;
      } else {
        if (typeof existing === 'string') throw invalidParam(rawKey, `Parameter '${rawKey}' is given both as a value and as an object.`);
        node = existing ?? (node[segment] = {});
      }
    }
  }
  return toParams(root) as StripeParams;
}

function toParams(tree: Tree | string): StripeParam {
  if (typeof tree === 'string') return tree;
  const keys = Object.keys(tree);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => toParams(tree[k] as Tree | string));
  }
  return Object.fromEntries(keys.map((k) => [k, toParams(tree[k] as Tree | string)]));
}

export function optionalString(params: StripeParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParam(name, `Invalid string: ${name} must be a string.`);
  return value;
}

export function requiredString(params: StripeParams, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined || value === '') throw missingParam(name);
  return value;
}

export function optionalInteger(params: StripeParams, name: string, range: { min: number; max: number }): number | undefined {
  const text = optionalString(params, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < range.min || value > range.max) {
    throw invalidParam(name, `Invalid integer: ${name} must be an integer from ${range.min} to ${range.max} (got '${text}').`);
  }
  return value;
}

export function optionalObject(params: StripeParams, name: string): StripeParams | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParam(name, `Invalid object: ${name} must be a hash.`);
  return value;
}

export function optionalArray(params: StripeParams, name: string): StripeParam[] | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw invalidParam(name, `Invalid array: ${name} must be an array.`);
  return value;
}

/** `metadata[...]` as Stripe keeps it: string values only, at most 50 keys. */
export function metadataOf(params: StripeParams, name = 'metadata'): Record<string, string> {
  const metadata = optionalObject(params, name) ?? {};
  const entries = Object.entries(metadata);
  if (entries.length > 50) throw invalidParam(name, `Invalid ${name}: at most 50 keys.`);
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw invalidParam(`${name}[${key}]`, `Invalid ${name}[${key}]: metadata values must be strings.`);
    if (key.length > 40) throw invalidParam(`${name}[${key}]`, `Invalid ${name}: keys are at most 40 characters.`);
    if (value.length > 500) throw invalidParam(`${name}[${key}]`, `Invalid ${name}[${key}]: values are at most 500 characters.`);
  }
  return Object.fromEntries(entries.filter(([, value]) => value !== '')) as Record<string, string>;
}

/** `expand[]=a.b` paths. */
export function expandPaths(params: StripeParams): string[] {
  return (optionalArray(params, 'expand') ?? []).map((path, i) => {
    if (typeof path !== 'string') throw invalidParam(`expand[${i}]`, 'Invalid expand: each entry must be a string.');
    return path;
  });
}
