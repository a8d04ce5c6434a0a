/**
 * @module What the driver contract cases share: fresh keys, and polling until a vendor's status
 * settles (excluded from the build like every *.contract.ts).
 */
import { randomUUID } from 'node:crypto';

export interface ContractTiming {
  /** How long a status may take to settle (e.g. provisioning → running). Default 10 s. */
  settleTimeoutMs?: number;
  /** The vendor cannot change a server's size in place (the size forces a new server): update must refuse it with an UnsupportedError. Default false. */
  noResizeInPlace?: boolean;
}

/** Polls `read` until `done` holds for its value; fails with the last value after `timeoutMs`. */
export async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    last = await read();
  }
  return last;
}

/** A key no earlier run can have used. */
export function contractKey(label: string): string {
  return `contract-${label}-${randomUUID()}`;
}
