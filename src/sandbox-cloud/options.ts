/**
 * @module The sandbox cloud's knobs: where it keeps its state, how it listens, and the faults it
 * injects (latency, errors, rate limits), with their defaults and validation.
 */

/** A fault the sandbox can inject into a request. `lost_response` applies only to writes. */
export type FaultKind = 'server_error' | 'unavailable' | 'rate_limited' | 'timeout' | 'lost_response';

export const FAULT_KINDS: readonly FaultKind[] = ['server_error', 'unavailable', 'rate_limited', 'timeout', 'lost_response'];

/** The knobs that may change while the sandbox runs (see `SandboxCloud.setFaults`). */
export interface SandboxFaults {
  /** Delay added to every /v1 request. */
  latencyMs: number;
  /** Probability (0..1) that a request gets one of `faultKinds`. */
  errorRate: number;
  /** Token bucket over all requests; 0 means no limit. */
  rateLimitPerSecond: number;
  /** How long a `timeout` fault holds a request before dropping the connection. */
  hangMs: number;
  /** Which faults `errorRate` draws from (default: all of them). */
  faultKinds: readonly FaultKind[];
}

export interface SandboxCloudOptions {
  dataDir: string;
  /** 0 (default) picks an ephemeral port. */
  port?: number;
  /** Only loopback is allowed. */
  host?: '127.0.0.1';
  latencyMs?: number;
  errorRate?: number;
  rateLimitPerSecond?: number;
  /** When set, only this bearer token is accepted; otherwise any non-empty one. */
  token?: string;
  /** How long a new server stays `provisioning` (and any other transition — a deploy, a backup, a restore — lasts). Default 1000. */
  provisionMs?: number;
  /** Default 30000. */
  hangMs?: number;
  /** Faults drawn by `errorRate` (default: all). */
  faultKinds?: readonly FaultKind[];
  /** Seeds the fault dice, so a run can be repeated. */
  seed?: number;
}

export interface ResolvedSandboxOptions {
  dataDir: string;
  port: number;
  host: '127.0.0.1';
  token: string | undefined;
  provisionMs: number;
  seed: number | undefined;
  faults: SandboxFaults;
}

/** Checks one numeric knob; throws a RangeError that names it. */
function checkNumber(name: string, value: number, min: number, max: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    throw new RangeError(`sandbox cloud: ${name} must be ${kind} from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** Validates fault knobs, whole or partial, and returns them merged onto `base`. */
export function mergeFaults(base: SandboxFaults, change: Partial<SandboxFaults>): SandboxFaults {
  const merged: SandboxFaults = { ...base, ...stripUndefined(change) };
  checkNumber('latencyMs', merged.latencyMs, 0, 600_000, false);
  checkNumber('errorRate', merged.errorRate, 0, 1, false);
  checkNumber('rateLimitPerSecond', merged.rateLimitPerSecond, 0, 1_000_000, false);
  checkNumber('hangMs', merged.hangMs, 0, 600_000, false);
  for (const kind of merged.faultKinds) {
    if (!FAULT_KINDS.includes(kind)) {
      throw new RangeError(`sandbox cloud: unknown fault kind "${String(kind)}" (known: ${FAULT_KINDS.join(', ')})`);
    }
  }
  return merged;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export const DEFAULT_FAULTS: SandboxFaults = {
  latencyMs: 0,
  errorRate: 0,
  rateLimitPerSecond: 0,
  hangMs: 30_000,
  faultKinds: FAULT_KINDS,
};

/** Applies defaults and validates every option; throws a RangeError naming the bad one. */
export function resolveSandboxOptions(options: SandboxCloudOptions): ResolvedSandboxOptions {
  if (typeof options.dataDir !== 'string' || options.dataDir === '') {
    throw new RangeError('sandbox cloud: dataDir is required');
  }
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') {
    throw new RangeError(`sandbox cloud: host must be 127.0.0.1 (it listens on loopback only), got ${String(host)}`);
  }
  if (options.token !== undefined && options.token === '') {
    throw new RangeError('sandbox cloud: token must not be empty');
  }
  if (options.seed !== undefined) checkNumber('seed', options.seed, 0, 2 ** 32 - 1, true);
  return {
    dataDir: options.dataDir,
    port: checkNumber('port', options.port ?? 0, 0, 65_535, true),
    host,
    token: options.token,
    provisionMs: checkNumber('provisionMs', options.provisionMs ?? 1000, 0, 3_600_000, false),
    seed: options.seed,
    faults: mergeFaults(DEFAULT_FAULTS, {
      latencyMs: options.latencyMs,
      errorRate: options.errorRate,
      rateLimitPerSecond: options.rateLimitPerSecond,
      hangMs: options.hangMs,
      faultKinds: options.faultKinds,
    }),
  };
}
