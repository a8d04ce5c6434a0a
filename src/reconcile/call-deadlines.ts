/**
 * @module No driver call can hang a worker: every verb of a driver wrapped here (see
 * DRIVER_VERBS in the driver contract) gets an AbortSignal that fires at its deadline — by call
 * type: `observe` for reads, `write` for changes, `long` for backups, restores and app builds —
 * or when cairn stops, whichever comes first. The signal goes down to the driver (its HTTP
 * requests, its child processes), and the caller stops waiting when it fires even if the driver
 * does not: a call past its deadline fails with a retryable DeadlineExceededError naming the
 * call and the deadline, a call cut short by a stop with CallCancelledError. What the vendor
 * does with an abandoned create is found again by its idempotency key on the next attempt (the
 * pending create stays recorded until a status write records the vendor's id).
 */
import { DRIVER_VERBS, type CallOptions } from '../drivers/contract.js';
import { VendorUnavailableError } from '../drivers/errors.js';

export type CallType = 'observe' | 'write' | 'long';

/** How long each type of driver call may take before it is abandoned, in milliseconds. */
export type CallDeadlines = Record<CallType, number>;

export const DEFAULT_CALL_DEADLINES: CallDeadlines = { observe: 30_000, write: 120_000, long: 30 * 60_000 };

/** The environment variables that set the deadlines, in seconds. */
export const CALL_DEADLINE_SETTINGS: Record<CallType, string> = {
  observe: 'CAIRN_DRIVER_TIMEOUT_OBSERVE_SECONDS',
  write: 'CAIRN_DRIVER_TIMEOUT_WRITE_SECONDS',
  long: 'CAIRN_DRIVER_TIMEOUT_LONG_SECONDS',
};

/** The deadlines the environment sets (the rest default); throws naming the variable when one is not a positive number. */
export function callDeadlinesFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<CallDeadlines> {
  const deadlines: Partial<CallDeadlines> = {};
  for (const [type, name] of Object.entries(CALL_DEADLINE_SETTINGS) as Array<[CallType, string]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const seconds = Number(raw);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`${name} must be a positive number of seconds, got "${raw}"`);
    deadlines[type] = seconds * 1000;
  }
  return deadlines;
}

/** A driver call ran past its deadline and was abandoned; retried like any vendor outage. */
export class DeadlineExceededError extends VendorUnavailableError {
  override readonly name: string = 'DeadlineExceededError';
  constructor(readonly call: string, readonly deadlineMs: number) {
    super(`${call} took longer than its deadline of ${describeMs(deadlineMs)} and was abandoned`);
  }
}

/** A driver call cut short because cairn is stopping: not a failure of the resource; it resumes on restart. */
export class CallCancelledError extends Error {
  override readonly name = 'CallCancelledError';
  constructor(readonly call: string) {
    super(`${call} was cancelled: cairn is stopping`);
  }
}

/** Whether `error` (or one of its causes) is a call cut short by a stop. */
export function isCancelled(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof CallCancelledError) return true;
  }
  return false;
}

export interface DeadlineSettings {
  deadlines: CallDeadlines;
  /** Fires when cairn stops: every call in flight is cancelled. */
  stopping?: AbortSignal;
}

/** `driver` with each verb given its deadline (objects it holds — a cloud's `servers`, a runtime's `databases` and `apps` — too). */
export function withDeadlines<T extends object>(driver: T, settings: DeadlineSettings, holder = ''): T {
  const nested = new Map<PropertyKey, object>();
  return new Proxy(driver, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value === 'function') {
        const verb = typeof property === 'string' && Object.hasOwn(DRIVER_VERBS, property) ? DRIVER_VERBS[property] : undefined;
        if (verb === undefined) return value;
        const type = holder === 'apps' && (property === 'create' || property === 'update') ? 'long' : verb.call;
        const name = holder === '' ? String(property) : `${holder}.${String(property)}`;
        const method = value as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]): Promise<unknown> => callWithDeadline(name, settings.deadlines[type], settings.stopping, (options) => {
          const given = args.slice(0, verb.arity);
          while (given.length < verb.arity) given.push(undefined);
          return method.apply(target, [...given, options]);
        }, args[verb.arity] as CallOptions | undefined);
      }
      if (typeof value === 'object' && value !== null && typeof property === 'string') {
        let wrapped = nested.get(property);
        if (wrapped === undefined) {
          wrapped = withDeadlines(value, settings, property);
          nested.set(property, wrapped);
        }
        return wrapped;
      }
      return value;
    },
  });
}

/** Runs one call with a signal that fires at its deadline, on a stop, or on the caller's own signal; stops waiting when it fires. */
async function callWithDeadline<R>(
  name: string,
  deadlineMs: number,
  stopping: AbortSignal | undefined,
  call: (options: CallOptions) => Promise<R>,
  given: CallOptions | undefined,
): Promise<R> {
  if (stopping?.aborted) throw new CallCancelledError(name);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DeadlineExceededError(name, deadlineMs)), deadlineMs);
  timer.unref();
  const onStop = (): void => deadline.abort(new CallCancelledError(name));
  stopping?.addEventListener('abort', onStop, { once: true });
  const signal = given?.signal ? AbortSignal.any([deadline.signal, given.signal]) : deadline.signal;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new DeadlineExceededError(name, deadlineMs));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const running = call({ signal });
  // Once abandoned, what the driver does is never seen: its late failure must not go unhandled.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, abandoned]);
  } finally {
    clearTimeout(timer);
    stopping?.removeEventListener('abort', onStop);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

function describeMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
