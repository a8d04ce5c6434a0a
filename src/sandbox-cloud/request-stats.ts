/**
 * @module Counts of what the sandbox was asked: requests in all, per route (`GET /v1/servers/:id`),
 * how many got an injected fault or a rate-limit refusal, and how many are held by the added
 * latency right now (a test that slowed the sandbox down waits for those to be answered).
 */

export interface SandboxStats {
  requests: number;
  byRoute: Record<string, number>;
  faults: number;
  /** Requests held by the added latency now: received, not yet handled. */
  delayed: number;
}

/** `/v1/servers/3f2a/actions` → `/v1/servers/:id/actions`. */
export function routeKey(method: string, path: string): string {
  const parts = path.split('/');
  if (parts.length > 3 && parts[3] !== '') parts[3] = ':id';
  return `${method.toUpperCase()} ${parts.join('/')}`;
}

export class RequestStats {
  private requests = 0;
  private faults = 0;
  private delayed = 0;
  private readonly byRoute = new Map<string, number>();

  recordRequest(method: string, path: string): void {
    this.requests += 1;
    const key = routeKey(method, path);
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
  }

  recordFault(): void {
    this.faults += 1;
  }

  /** A request starts (+1) or ends (-1) its added latency. */
  recordDelay(change: 1 | -1): void {
    this.delayed += change;
  }

  snapshot(): SandboxStats {
    return { requests: this.requests, byRoute: Object.fromEntries(this.byRoute), faults: this.faults, delayed: this.delayed };
  }
}
