/**
 * @module Watches in the Kubernetes protocol: a stream of `{type, object}` lines (ADDED,
 * MODIFIED, DELETED, BOOKMARK, ERROR) from a resourceVersion on. The store's revision is
 * polled; changes since the last one sent are read with their tombstones, so a watch resumed
 * from a resourceVersion misses nothing. A resourceVersion older than the kept tombstones is
 * an ERROR event with a 410 Expired Status; no resourceVersion (or "0") first replays what
 * exists as ADDED. Changes between two looks coalesce per object: its latest state is sent
 * once (ADDED if it was created since, MODIFIED otherwise, DELETED once removed).
 */
import type { Request, Response } from 'express';
import type { Kind } from '../../model/kinds.js';
import type { AnyStoredResource } from '../../model/resource.js';
import type { Store } from '../../store/store.js';
import type { ResourceScope } from '../../store/resource-history.js';
import { GROUP_VERSION } from '../../kubernetes/kind-names.js';
import { toKubeObject, type KubeObject } from '../../kubernetes/kube-object.js';
import type { LabelMatcher } from './kube-selectors.js';

export interface WatchTiming {
  /** How often the store's revision is looked at. */
  pollMs: number;
  /** How often a BOOKMARK is sent when the client allows them. */
  bookmarkMs: number;
}

export const DEFAULT_WATCH_TIMING: WatchTiming = { pollMs: 200, bookmarkMs: 15_000 };
/** Without timeoutSeconds a watch ends after this long, and the client re-establishes it. */
const DEFAULT_TIMEOUT_SECONDS = 1800;

export interface WatchRequest {
  scope: ResourceScope;
  kind: Kind;
  /** The resourceVersion to start after; undefined (or 0) replays current objects first. */
  fromRevision: number | undefined;
  matches: (r: AnyStoredResource) => boolean;
  labels: LabelMatcher;
  bookmarks: boolean;
  timeoutSeconds: number | undefined;
  /** Renders one object as the client asked (the object, or a one-row Table). */
  render: (object: KubeObject) => unknown;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

function selected(request: WatchRequest, r: AnyStoredResource): boolean {
  return request.matches(r) && request.labels(r.labels);
}

/** Streams the watch until the client goes, the timeout passes or the server stops. */
export function serveWatch(req: Request, res: Response, store: Store, request: WatchRequest, timing: WatchTiming): void {
  res.status(200);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();
  const send = (type: EventType, object: unknown): void => {
    res.write(`${JSON.stringify({ type, object })}\n`);
  };
  let closed = false;
  let last = request.fromRevision ?? 0;
  const timers: NodeJS.Timeout[] = [];
  const finish = (): void => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearTimeout(t);
    for (const t of timers) clearInterval(t);
    res.end();
  };
  req.on('close', finish);
  res.on('close', finish);

  if (request.fromRevision !== undefined && request.fromRevision > 0 && request.fromRevision < store.history.prunedThrough()) {
    send('ERROR', {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410,
      message: `too old resource version: ${request.fromRevision} (${store.history.prunedThrough()})`,
    });
    finish();
    return;
  }
  if (request.fromRevision === undefined || request.fromRevision === 0) {
    last = store.resources.revision();
    const { items } = store.history.pageByName(request.scope, Number.MAX_SAFE_INTEGER);
    for (const r of items) if (selected(request, r)) send('ADDED', request.render(toKubeObject(r)));
  }

  const poll = (): void => {
    if (closed) return;
    const revision = store.resources.revision();
    if (revision <= last) return;
    const { changed, removed } = store.history.changesSince(request.scope, last);
    const events: Array<{ at: number; type: EventType; resource: AnyStoredResource }> = [];
    for (const { resource, createdRevision } of changed) events.push({ at: resource.resourceVersion, type: createdRevision > last ? 'ADDED' : 'MODIFIED', resource });
    for (const resource of removed) events.push({ at: resource.resourceVersion, type: 'DELETED', resource });
    events.sort((a, b) => a.at - b.at);
    for (const event of events) if (selected(request, event.resource)) send(event.type, request.render(toKubeObject(event.resource)));
    last = Math.max(revision, ...events.map((e) => e.at));
  };
  timers.push(setInterval(poll, timing.pollMs));
  if (request.bookmarks) {
    timers.push(setInterval(() => {
      if (!closed) send('BOOKMARK', { kind: request.kind, apiVersion: GROUP_VERSION, metadata: { resourceVersion: String(last) } });
    }, timing.bookmarkMs));
  }
  timers.push(setTimeout(finish, (request.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000));
}
