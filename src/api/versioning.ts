/**
 * @module Optimistic concurrency over HTTP: each record's `ETag` is the version of its desired
 * state (specVersion: what PUT and DELETE change, not the reconciler's status writes), and
 * `If-Match` on PUT and DELETE must name the current one. As RFC 9110 §13.1.1 says, a
 * well-formed entity-tag list that names no current version is 412 (`precondition_failed`);
 * only a header that is not an entity-tag list at all is 400.
 */
import type { Request, Response } from 'express';
import { MalformedRequestError, PreconditionFailedError } from '../model/errors.js';

export function setEtag(res: Response, specVersion: number): void {
  res.setHeader('ETag', `"${specVersion}"`);
}

/** One `[W/]"opaque"` at the start of the rest of a list, with what follows it. */
const ENTITY_TAG = /^\s*(?:W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"\s*(?:,|$)/;

/** The opaque parts of an entity-tag list (`"a", W/"b"`), or undefined when it is not one. */
function entityTags(header: string): string[] | undefined {
  const tags: string[] = [];
  let rest = header;
  while (rest.trim() !== '') {
    const match = ENTITY_TAG.exec(rest);
    if (!match) return undefined;
    tags.push(match[1] ?? '');
    rest = rest.slice(match[0].length);
  }
  return tags.length > 0 ? tags : undefined;
}

/**
 * The version If-Match asks for — the current one, which the store checks again inside its
 * write — or undefined without the header (`*` matches any version). Throws 412 when the list
 * names no current version, 400 when the header is not an entity-tag list.
 */
export function expectedVersion(req: Request, current: { specVersion: number }): number | undefined {
  const header = req.get('If-Match');
  if (header === undefined || header.trim() === '*') return undefined;
  const tags = entityTags(header);
  if (!tags) throw new MalformedRequestError(`If-Match must be "*" or a list of entity tags like "42" (an ETag this API gave out); got ${header}`);
  if (tags.includes(String(current.specVersion))) return current.specVersion;
  throw new PreconditionFailedError(
    `If-Match ${header} names no current version: the resource is at "${current.specVersion}"; read it again and retry`,
  );
}
