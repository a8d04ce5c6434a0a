/**
 * @module Status over time without timers: a row holds its settled state plus an optional
 * "busy" status (provisioning, stopping, deploying, ...) that lasts until a timestamp; what a
 * client sees is computed when it asks.
 */

export interface BusyFields {
  busy_status: string | null;
  busy_until_ms: number;
}

/** The busy status while it lasts, else the settled one. */
export function statusAt<S extends string>(row: BusyFields, settled: S, nowMs: number): string {
  return row.busy_status !== null && nowMs < row.busy_until_ms ? row.busy_status : settled;
}

export function isBusy(row: BusyFields, nowMs: number): boolean {
  return row.busy_status !== null && nowMs < row.busy_until_ms;
}

/** Starts a transition that lasts `durationMs` (0: settled at once). */
export function startTransition(status: string, nowMs: number, durationMs: number): BusyFields {
  return { busy_status: status, busy_until_ms: nowMs + durationMs };
}
