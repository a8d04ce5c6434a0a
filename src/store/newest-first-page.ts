/**
 * @module One page of a tenant's rows of a table, newest first by (a time column, id), with the
 * keyset cursor of paging.ts: alerts by `started_at`, event webhooks by `created_at`.
 */
import { decodeCursor, toPage, type Page, type PageRequest } from './paging.js';
import type { StatementCache } from './sqlite.js';

/** `table` and `timeColumn` are this store's own names, never input. */
export function newestFirstPage<Row extends { id: string }, Item>(
  sql: StatementCache,
  from: { table: 'alerts' | 'event_webhooks'; timeColumn: 'started_at' | 'created_at' },
  tenant: string,
  request: PageRequest,
  toItem: (row: Row) => Item,
  keyOf: (row: Row) => string,
): Page<Item> {
  const { table, timeColumn } = from;
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 2);
  const order = `ORDER BY ${timeColumn} DESC, id DESC LIMIT ?`;
  const rows = (after === undefined
    ? sql.get(`SELECT * FROM ${table} WHERE tenant = ? ${order}`).all(tenant, request.limit + 1)
    : sql.get(`SELECT * FROM ${table} WHERE tenant = ? AND (${timeColumn}, id) < (?, ?) ${order}`).all(tenant, String(after[0]), String(after[1]), request.limit + 1)) as Row[];
  const page = toPage(rows, request.limit, (row) => [keyOf(row), row.id]);
  return { items: page.items.map(toItem), nextCursor: page.nextCursor };
}
