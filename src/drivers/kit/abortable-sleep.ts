/**
 * @module Waiting that an AbortSignal cuts short: the vendor kit's back-offs and rate-budget
 * waits never outlive the driver call they belong to.
 */

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
