/**
 * @module Keyset pagination for the store's lists: a page of items and an opaque cursor for the
 * next one. Cursors encode the last item's sort key, so pages stay stable while rows are added.
 */
import { ValidationError } from '../model/errors.js';

export interface PageRequest {
  /** 1–200. */
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A cursor holding the sort key of the last item shown. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key in `cursor`; a cursor that was not made by `encodeCursor` is a 422 on `cursor`. */
export function decodeCursor(cursor: string, arity: number): Array<string | number> {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' || typeof k === 'number')) {
      return key;
    }
  } catch {
    // falls through to the error below
  }
  throw new ValidationError('cursor is not one this server gave out; start again without it', [
    { pointer: '/cursor', message: 'not a cursor from a previous page' },
  ]);
}

/** Turns `limit + 1` fetched rows into a page, with a cursor when there were more. */
export function toPage<T>(rows: T[], limit: number, keyOf: (item: T) => readonly (string | number)[]): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}
