/**
 * @module Live resources: one `GET /watch` stream per signed-in tab, read with a streaming
 * `fetch` (the bearer header, never a token in the URL), reconnecting with `Last-Event-ID`
 * after a drop, so statuses change on the page as the reconciler writes them: no polling.
 */
import { useEffect, useState } from 'preact/hooks';
import { authorizedFetch } from './api';

export type Collection = 'providers' | 'servers' | 'databases' | 'apps' | 'sources';
export const COLLECTIONS: Collection[] = ['providers', 'servers', 'databases', 'apps', 'sources'];

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** A REST record as the watch sends it (the fields every page uses; the rest is kind-specific). */
export interface LiveRecord {
  id: string;
  name: string;
  status: string;
  conditions?: Condition[];
  [field: string]: unknown;
}

type Snapshot = Record<Collection, Map<string, LiveRecord>>;

const records: Snapshot = { providers: new Map(), servers: new Map(), databases: new Map(), apps: new Map(), sources: new Map() };
const listeners = new Set<() => void>();
let connection: AbortController | undefined;
let lastEventId: string | undefined;
let connected = false;

function changed(): void {
  for (const listener of listeners) listener();
}

function apply(block: string): void {
  let data: string | undefined;
  let event: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) lastEventId = line.slice(4);
    else if (line.startsWith('data: ')) data = line.slice(6);
    else if (line.startsWith('event: ')) event = line.slice(7);
  }
  if (event === 'reset') {
    for (const c of COLLECTIONS) records[c].clear();
    return;
  }
  if (data === undefined) return;
  const change = JSON.parse(data) as { type: string; kind: Collection; object: LiveRecord };
  const kind = records[change.kind];
  if (change.type === 'DELETED') kind.delete(change.object.id);
  else kind.set(change.object.id, change.object);
}

async function follow(signal: AbortSignal): Promise<void> {
  let delay = 500;
  while (!signal.aborted) {
    try {
      const response = await authorizedFetch('/api/v1/watch', { signal, headers: lastEventId ? { 'Last-Event-ID': lastEventId } : {} });
      if (!response.ok || !response.body) throw new Error(`watch answered ${response.status}`);
      if (lastEventId === undefined) for (const c of COLLECTIONS) records[c].clear();
      connected = true;
      delay = 500;
      changed();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        let any = false;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          apply(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          any = true;
        }
        if (any) changed();
      }
    } catch {
      if (signal.aborted) return;
    }
    connected = false;
    changed();
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 10_000);
  }
}

/** Starts following (once per tab). */
export function startLive(): void {
  if (connection) return;
  connection = new AbortController();
  void follow(connection.signal);
}

/** Stops following and forgets everything (on sign-out). */
export function stopLive(): void {
  connection?.abort();
  connection = undefined;
  lastEventId = undefined;
  for (const c of COLLECTIONS) records[c].clear();
}

/** Re-renders the component on every change; the live records of `collection`, by name. */
export function useLive(collection: Collection): LiveRecord[] {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = (): void => setTick((t) => t + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return [...records[collection].values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** One live record, or undefined while it is not (yet) known. */
export function useLiveRecord(collection: Collection, id: string): LiveRecord | undefined {
  return useLive(collection).find((r) => r.id === id);
}

/** Whether the stream is up (shown in the header). */
export function useLiveConnected(): boolean {
  useLive('servers');
  return connected;
}
