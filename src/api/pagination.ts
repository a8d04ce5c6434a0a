/**
 * @module `limit` and `cursor` query parameters of list routes (limit 1–200, default 50; 422
 * otherwise), and the `{items, next_cursor}` shape every list answers with.
 */
import type { Request } from 'express';
import { ValidationError } from '../model/errors.js';
import type { Page, PageRequest } from '../store/paging.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new ValidationError(`${name} must be given once`, [{ pointer: `/${name}`, message: 'must be given once' }]);
}

export function pageRequest(req: Request): PageRequest {
  const limitText = single(req.query.limit, 'limit');
  const cursor = single(req.query.cursor, 'cursor');
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) {
      const message = `must be a whole number from 1 to ${MAX_LIMIT}, got "${limitText}"`;
      throw new ValidationError(`limit ${message}`, [{ pointer: '/limit', message }]);
    }
  }
  return { limit, ...(cursor !== undefined && cursor !== '' ? { cursor } : {}) };
}

export interface ListBody<R> {
  items: R[];
  next_cursor: string | null;
}

export function listBody<T, R>(page: Page<T>, toRecord: (item: T) => R): ListBody<R> {
  return { items: page.items.map(toRecord), next_cursor: page.nextCursor };
}

/** A query parameter that must be a single string when present. */
export function queryText(req: Request, name: string): string | undefined {
  return single(req.query[name], name);
}
