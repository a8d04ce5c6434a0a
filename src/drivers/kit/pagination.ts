/**
 * @module Reading every page of a vendor's list, whatever its paging style (page numbers,
 * a cursor, a next link): the driver says how to fetch one page and where the next one is; this
 * walks them in order, with a bound so a vendor that never says "last page" cannot loop cairn.
 */

export interface Page<T> {
  items: T[];
  /** Where the next page is (a page number, a cursor, a URL), or undefined on the last one. */
  next: string | undefined;
}

/** Every item of every page, first page first. */
export async function readAllPages<T>(fetchPage: (at: string | undefined) => Promise<Page<T>>, what: string, maxPages = 1000): Promise<T[]> {
  const items: T[] = [];
  let at: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const answer = await fetchPage(at);
    items.push(...answer.items);
    if (answer.next === undefined || answer.next === at) return items;
    at = answer.next;
  }
  throw new Error(`${what}: still more pages after ${maxPages}; the vendor's paging does not end`);
}
