/**
 * @module An answer to a write leaves only once that write is durable: while the reconcile loop
 * in this process holds a commit group open, a request's writes join that group, so before the
 * answer to anything but GET, HEAD or OPTIONS starts (its headers are written), the group is
 * committed (one fsync). Writes made with no group open were committed, and fsynced, on the spot.
 */
import type { RequestHandler } from 'express';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function commitBeforeAnswering(commits: { commitNow(): void }): RequestHandler {
  return (req, res, next) => {
    if (READS.has(req.method)) {
      next();
      return;
    }
    // Every answer goes through writeHead, also res.end() without it (Node's implicit header).
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
    res.writeHead = ((...args: unknown[]) => {
      commits.commitNow();
      return writeHead(...args);
    }) as typeof res.writeHead;
    next();
  };
}
