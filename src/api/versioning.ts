/**
 * @module Optimistic concurrency over HTTP: each record's `ETag` is the version of its desired
 * state (specVersion: what PUT and DELETE change, not the reconciler's status writes), and
 * `If-Match` on PUT and DELETE must name the current one (412 otherwise).
 */
import type { Request, Response } from 'express';
import { MalformedRequestError } from '../model/errors.js';

export function setEtag(res: Response, specVersion: number): void {
  res.setHeader('ETag', `"${specVersion}"`);
}

/** The version If-Match asks for, or undefined without the header (`*` matches any version). */
export function expectedVersion(req: Request): number | undefined {
  const header = req.get('If-Match');
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"(\d+)"\s*$/.exec(header);
  if (!match) throw new MalformedRequestError(`If-Match must be an ETag this API gave out, like "42"; got ${header}`);
  return Number(match[1]);
}
