/**
 * @module Following IONOS's asynchronous writes: every write is answered 202 with a `Location`
 * of `/requests/{id}/status`, which cairn polls (`requestsStatusGet`), from one poll interval after the answer, until the request is DONE;
 * FAILED becomes a VendorRejectedError with IONOS's message. The request id is read from the
 * Location's path, and its status read below cairn's own base URL (the same API).
 */
import { VendorUnavailableError } from '../errors.js';
import { abortable } from '../kit/abortable-sleep.js';
import { followAction } from '../kit/follow-action.js';
import type { VendorAnswer, VendorHttpClient } from '../kit/vendor-http.js';
import { WireReader } from '../kit/wire-reader.js';

/** The request id in a 202's `Location` header, or undefined without one. */
export function requestIdOf(answer: Pick<VendorAnswer, 'headers'>): string | undefined {
  const location = answer.headers.get('location');
  const match = location === null ? null : /\/requests\/([^/?#]+)\/status\b/.exec(location);
  return match?.[1];
}

/** Waits for the write that gave `answer` to be carried out. */
export async function followRequest(client: VendorHttpClient, answer: VendorAnswer, doing: string, pollMs: number, signal?: AbortSignal): Promise<void> {
  const id = requestIdOf(answer);
  if (id === undefined) throw new VendorUnavailableError(`ionos: ${doing}: the ${answer.status} answer has no Location of its request's status`);
  // A request is never done the moment it is accepted: the first look waits one interval.
  await abortable(pollMs, signal);
  await followAction(
    async () => {
      const status = await client.call({ method: 'GET', path: `/requests/${encodeURIComponent(id)}/status`, doing: `${doing}: follow request ${id}`, signal });
      const metadata = WireReader.of(status.body, `ionos: ${doing}: request ${id}`).object('metadata');
      const state = metadata.oneOf('status', ['QUEUED', 'RUNNING', 'DONE', 'FAILED'] as const);
      if (state === 'FAILED') return { done: true, failed: metadata.stringOrNull('message') ?? 'no message' };
      return { done: state === 'DONE' };
    },
    { what: `ionos: ${doing}`, intervalMs: pollMs, signal },
  );
}
