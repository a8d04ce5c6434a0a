/**
 * @module Reading every page: items in order across pages, and a vendor whose paging never ends
 * is stopped with a message rather than followed forever.
 */
import { describe, expect, it } from 'vitest';
import { readAllPages } from './pagination.js';

describe('readAllPages', () => {
  it('reads page after page until the vendor names no next one', async () => {
    const seen: Array<string | undefined> = [];
    const items = await readAllPages((at) => {
      seen.push(at);
      const page = Number(at ?? 1);
      return Promise.resolve({ items: [page * 10, page * 10 + 1], next: page < 3 ? String(page + 1) : undefined });
    }, 'list things');
    expect(items).toEqual([10, 11, 20, 21, 30, 31]);
    expect(seen).toEqual([undefined, '2', '3']);
  });

  it('stops a paging that never ends', async () => {
    let page = 0;
    await expect(readAllPages(() => Promise.resolve({ items: [], next: String(++page) }), 'hetzner: list servers', 5)).rejects.toThrow(
      'hetzner: list servers: still more pages after 5',
    );
  });
});
