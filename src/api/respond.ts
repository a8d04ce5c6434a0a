/**
 * @module How routes answer with a record: its ETag, a Location for new ones, and the status
 * (202 when the world still has to change, as API.md says for writes the reconciler converges).
 */
import type { Request, Response } from 'express';
import { setEtag } from './versioning.js';

export function sendRecord(res: Response, status: number, specVersion: number, record: unknown): void {
  setEtag(res, specVersion);
  res.status(status).json(record);
}

/** Sets `Location` to the new record's URL under the prefix the request came in on. */
export function setLocation(req: Request, res: Response, collection: string, id: string): void {
  res.setHeader('Location', `${req.baseUrl}/${collection}/${id}`);
}

/** The `id` path parameter. */
export function pathId(req: Request, name = 'id'): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}
