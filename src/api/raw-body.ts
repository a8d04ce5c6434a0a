/**
 * @module The exact bytes of a webhook's JSON body, which the body parser keeps for paths ending
 * in `/webhook` (see app.ts), so signatures are checked against what their sender signed.
 */
import type { Request } from 'express';

export function rawBodyOf(req: Request): Buffer {
  const raw = (req as { rawBody?: unknown }).rawBody;
  return Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
}
