/**
 * @module HTTP load with autocannon against one URL: an unmeasured warm-up, then a measured run;
 * mean requests per second, latency percentiles, errors and non-2xx answers.
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  headers?: Record<string, string>;
}

export interface LoadFigures {
  /** Mean requests per second over the measured run. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  durationS: number;
}

function run(url: string, connections: number, durationS: number, headers: Record<string, string>): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: durationS, headers });
}

export async function measureLoad(url: string, options: LoadOptions): Promise<LoadFigures> {
  const headers = options.headers ?? {};
  if (options.warmupS > 0) await run(url, options.connections, options.warmupS, headers);
  const result = await run(url, options.connections, options.durationS, headers);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    durationS: result.duration,
  };
}
