/**
 * @module Polling for end-to-end tests: read until a condition holds, failing with what was last
 * read (and the last error) when it never does. Never a fixed sleep.
 */

/** Reads every 100 ms until `done` holds for what was read; throws after `timeoutMs`. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 50_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  let failure: unknown;
  while (Date.now() < end) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      failure = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)} ${failure instanceof Error ? failure.message : ''}`);
}
