/**
 * @module Following a vendor's asynchronous action (power off, resize, ...) to its end: poll its
 * status until it succeeds; a failed action becomes a VendorRejectedError with the vendor's
 * reason, one that runs past its time a VendorUnavailableError (the reconciler comes back).
 */
import { VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { abortable } from './abortable-sleep.js';

export type ActionState = { done: false } | { done: true; failed?: string };

export interface FollowOptions {
  /** For messages: `hetzner: resize server 42`. */
  what: string;
  intervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

/** Polls `read` until the action is done; throws when it failed or took too long. */
export async function followAction(read: () => Promise<ActionState>, options: FollowOptions): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const state = await read();
    if (state.done) {
      if (state.failed !== undefined) throw new VendorRejectedError(`${options.what}: the vendor's action failed: ${state.failed}`);
      return;
    }
    if (Date.now() > deadline) throw new VendorUnavailableError(`${options.what}: the vendor's action is still running after ${options.timeoutMs ?? 600_000} ms`);
    await abortable(options.intervalMs ?? 1000, options.signal);
  }
}
