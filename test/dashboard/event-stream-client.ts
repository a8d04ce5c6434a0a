/**
 * @module A server-sent events reader for tests, over a streaming `fetch` with a bearer header
 * (as the dashboard reads `/watch`): parses the stream into events and comment lines, and
 * waits for the one a test expects.
 */
export interface StreamEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface EventStream {
  status: number;
  contentType: string;
  /** Everything received so far, in order. */
  received: StreamEvent[];
  /** Waits for the first event from `from` (an index into `received`) that `match` accepts. */
  next(match: (event: StreamEvent) => boolean, timeoutMs?: number, from?: number): Promise<StreamEvent>;
  close(): void;
}

export async function openEventStream(url: string, token: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, ...headers }, signal: abort.signal });
  const received: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  if (response.body && response.status === 200) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async (): Promise<void> => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event: StreamEvent = {};
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) event.comment = line.slice(1).trim();
              else if (line.startsWith('id: ')) event.id = line.slice(4);
              else if (line.startsWith('event: ')) event.event = line.slice(7);
              else if (line.startsWith('data: ')) event.data = line.slice(6);
            }
            received.push(event);
          }
          for (const wake of waiters) wake();
        }
      } catch {
        // aborted by close()
      } finally {
        ended = true;
        for (const wake of waiters) wake();
      }
    })();
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    received,
    async next(match, timeoutMs = 5_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.slice(from).find(match);
        if (found) return found;
        if (ended) throw new Error(`the stream ended without the event; received ${JSON.stringify(received)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for an event; received ${JSON.stringify(received)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => { waiters.delete(wake); resolve(); }, left);
          const wake = (): void => { clearTimeout(timer); waiters.delete(wake); resolve(); };
          waiters.add(wake);
        });
      }
    },
    close() {
      if (response.status === 200) abort.abort();
      else response.body?.cancel().catch(() => undefined);
    },
  };
}

/** The parsed `data` of a watch event. */
export function watchData(event: StreamEvent): { type: string; kind: string; object: { id: string; name: string; status?: string } } {
  return JSON.parse(event.data ?? '{}') as { type: string; kind: string; object: { id: string; name: string; status?: string } };
}
