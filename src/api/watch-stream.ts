/**
 * @module `GET /watch` as server-sent events: one `data: {type, kind, object}` per change of a
 * tenant's providers, servers, databases, apps and git sources. Resources are followed by the
 * store's revision (polled, like the Kubernetes watch): each event's `id` is the revision it
 * reached, so `Last-Event-ID` resumes after it and misses nothing the kept tombstones still
 * hold; a resume from before them (or no `Last-Event-ID`) replays what exists as ADDED, after
 * an `event: reset` when it was a resume. Git sources are not revisioned: their records are
 * compared on every look and sent again as ADDED when a stream starts. A comment line every
 * `heartbeatMs` keeps proxies from closing an idle stream; a client that goes ends it.
 */
import type { Request, Response } from 'express';
import type { AnyStoredResource } from '../model/resource.js';
import type { Store } from '../store/store.js';
import { RESOURCE_KIND, resourceWatchRecord, sourceWatchRecords, type WatchKind } from './watch-records.js';

export interface DashboardWatchTiming {
  /** How often the store's revision (and the git sources) are looked at. */
  pollMs: number;
  /** How often a heartbeat comment is sent. */
  heartbeatMs: number;
}

export const DEFAULT_DASHBOARD_WATCH_TIMING: DashboardWatchTiming = { pollMs: 250, heartbeatMs: 15_000 };

let activeStreams = 0;

/** How many watch streams this process is serving now (each one's timers run until it ends). */
export function activeWatchStreams(): number {
  return activeStreams;
}

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';
type ResourceWatchKind = Exclude<WatchKind, 'sources'>;

interface Change {
  at: number;
  type: ChangeType;
  kind: WatchKind;
  object: unknown;
}

export interface WatchStreamRequest {
  tenant: string;
  kinds: readonly WatchKind[];
  /** The revision of `Last-Event-ID`, when the client resumes. */
  lastEventId: number | undefined;
}

/** Streams changes until the client goes or the server stops (`res` closes). */
export function serveDashboardWatch(req: Request, res: Response, store: Store, request: WatchStreamRequest, timing: DashboardWatchTiming): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const resourceKinds = request.kinds.filter((k): k is ResourceWatchKind => k !== 'sources');
  const watchesSources = request.kinds.includes('sources');
  let closed = false;
  activeStreams += 1;
  const timers: NodeJS.Timeout[] = [];
  const finish = (): void => {
    if (closed) return;
    closed = true;
    activeStreams -= 1;
    for (const t of timers) clearInterval(t);
    res.end();
  };
  req.on('close', finish);
  res.on('close', finish);

  /** Sends changes in revision order; the id goes on the last event of each revision only, so a resume never skips half of one. */
  const send = (changes: Change[]): void => {
    changes.sort((a, b) => a.at - b.at);
    const lines = changes.map((change, index) => {
      const id = changes[index + 1]?.at === change.at ? '' : `id: ${change.at}\n`;
      return `${id}data: ${JSON.stringify({ type: change.type, kind: change.kind, object: change.object })}\n\n`;
    });
    if (lines.length > 0) res.write(lines.join(''));
  };
  const render = (kind: ResourceWatchKind, r: AnyStoredResource): unknown => resourceWatchRecord(store, request.tenant, kind, r);

  let last = store.resources.revision();
  const resumable = request.lastEventId !== undefined && request.lastEventId >= store.history.prunedThrough() && request.lastEventId <= last;
  if (resumable) {
    last = request.lastEventId ?? last;
  } else {
    if (request.lastEventId !== undefined) res.write('event: reset\ndata: {}\n\n');
    const replay: Change[] = [];
    for (const kind of resourceKinds) {
      const { items } = store.history.pageByName({ tenant: request.tenant, kind: RESOURCE_KIND[kind] }, Number.MAX_SAFE_INTEGER);
      for (const r of items) replay.push({ at: last, type: 'ADDED', kind, object: render(kind, r) });
    }
    send(replay);
  }
  let sources = new Map<string, string>();
  if (watchesSources) {
    const current = sourceWatchRecords(store, request.tenant);
    send([...current].map(([, object]) => ({ at: last, type: 'ADDED' as const, kind: 'sources' as const, object })));
    sources = new Map([...current].map(([id, object]) => [id, JSON.stringify(object)]));
  }

  const pollResources = (): Change[] => {
    const revision = store.resources.revision();
    if (revision <= last) return [];
    const changes: Change[] = [];
    for (const kind of resourceKinds) {
      const { changed, removed } = store.history.changesSince({ tenant: request.tenant, kind: RESOURCE_KIND[kind] }, last);
      for (const { resource, createdRevision } of changed) {
        changes.push({ at: resource.resourceVersion, type: createdRevision > last ? 'ADDED' : 'MODIFIED', kind, object: render(kind, resource) });
      }
      for (const resource of removed) changes.push({ at: resource.resourceVersion, type: 'DELETED', kind, object: render(kind, resource) });
    }
    last = Math.max(revision, ...changes.map((c) => c.at));
    return changes;
  };
  const pollSources = (): Change[] => {
    if (!watchesSources) return [];
    const current = sourceWatchRecords(store, request.tenant);
    const changes: Change[] = [];
    for (const [id, object] of current) {
      const json = JSON.stringify(object);
      const before = sources.get(id);
      if (before !== json) changes.push({ at: last, type: before === undefined ? 'ADDED' : 'MODIFIED', kind: 'sources', object });
    }
    for (const [id, json] of sources) if (!current.has(id)) changes.push({ at: last, type: 'DELETED', kind: 'sources', object: JSON.parse(json) as unknown });
    sources = new Map([...current].map(([id, object]) => [id, JSON.stringify(object)]));
    return changes;
  };

  timers.push(setInterval(() => {
    if (closed) return;
    const resourceChanges = pollResources();
    send([...resourceChanges, ...pollSources()]);
  }, timing.pollMs));
  timers.push(setInterval(() => {
    if (!closed) res.write(': heartbeat\n\n');
  }, timing.heartbeatMs));
}
