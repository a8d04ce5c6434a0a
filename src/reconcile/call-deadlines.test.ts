/**
 * @module Deadlines on driver calls: a verb past its deadline is abandoned with an error naming
 * it and the deadline (whether or not the driver heeds its signal), the signal reaches the
 * driver in the verb's options slot whatever the caller left out, a stop cancels calls in
 * flight, apps' create and update get the long deadline, and the environment's settings are
 * checked.
 */
import { describe, expect, it } from 'vitest';
import type { CallOptions } from '../drivers/contract.js';
import { VendorUnavailableError } from '../drivers/errors.js';
import { CallCancelledError, callDeadlinesFromEnv, DeadlineExceededError, isCancelled, withDeadlines } from './call-deadlines.js';
import { classifyFailure } from './errors.js';

/** A driver whose calls wait until their signal fires (or forever, for `ignoring`); it remembers what it was given. */
class BlockingDriver {
  readonly given: unknown[][] = [];
  readonly apps = { create: (...args: unknown[]) => this.wait(args), logs: (...args: unknown[]) => this.wait(args) };

  create(...args: unknown[]): Promise<unknown> {
    return this.wait(args);
  }

  delete(...args: unknown[]): Promise<unknown> {
    this.given.push(args);
    return new Promise(() => undefined); // never answers, never looks at its signal
  }

  observe(...args: unknown[]): Promise<unknown> {
    this.given.push(args);
    return Promise.resolve({ id: 'srv-1' });
  }

  private wait(args: unknown[]): Promise<unknown> {
    this.given.push(args);
    const { signal } = args[args.length - 1] as CallOptions;
    return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('the driver saw its signal fire'))));
  }
}

const deadlines = { observe: 100, write: 40, long: 5_000 };

describe('withDeadlines', () => {
  it('abandons a call past its deadline with a retryable error naming the call and the deadline; the driver sees its signal fire', async () => {
    const driver = new BlockingDriver();
    const bounded = withDeadlines(driver, { deadlines });
    const error = await bounded.create('key-1', { name: 'web' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error).toBeInstanceOf(VendorUnavailableError);
    expect((error as Error).message).toBe('create took longer than its deadline of 40 ms and was abandoned');
    expect(classifyFailure(error)).toMatchObject({ kind: 'retry', reason: 'DeadlineExceeded' });
    const signal = (driver.given[0]?.[2] as CallOptions).signal;
    expect(signal?.aborted).toBe(true);
  });

  it('stops waiting for a driver that ignores its signal', async () => {
    const bounded = withDeadlines(new BlockingDriver(), { deadlines });
    await expect(bounded.delete('srv-1')).rejects.toThrow('delete took longer than its deadline of 40 ms');
  });

  it('puts the options in their slot whatever the caller left out, and passes answers through', async () => {
    const driver = new BlockingDriver();
    const bounded = withDeadlines(driver, { deadlines });
    expect(await bounded.observe({ key: 'k' })).toEqual({ id: 'srv-1' });
    const [ref, options] = driver.given[0] ?? [];
    expect(ref).toEqual({ key: 'k' });
    expect((options as CallOptions).signal).toBeInstanceOf(AbortSignal);
    // logs(externalId, query, options): called with the id only, the options still come third.
    const logs = bounded.apps.logs('app-1').catch((e: unknown) => e);
    expect(driver.given[1]).toHaveLength(3);
    expect(driver.given[1]?.[1]).toBeUndefined();
    expect(await logs).toBeInstanceOf(DeadlineExceededError);
  });

  it("gives an app's create the long deadline (it builds), a server's create the write deadline", async () => {
    const bounded = withDeadlines(new BlockingDriver(), { deadlines: { observe: 1_000, write: 40, long: 80 } });
    await expect(bounded.apps.create('key', {})).rejects.toThrow('apps.create took longer than its deadline of 80 ms');
    await expect(bounded.create('key', {})).rejects.toThrow('create took longer than its deadline of 40 ms');
  });

  it('cancels calls in flight when cairn stops, and refuses new ones', async () => {
    const stopping = new AbortController();
    const bounded = withDeadlines(new BlockingDriver(), { deadlines: { observe: 60_000, write: 60_000, long: 60_000 }, stopping: stopping.signal });
    const call = bounded.create('key', {}).catch((e: unknown) => e);
    stopping.abort();
    const error = await call;
    expect(error).toBeInstanceOf(CallCancelledError);
    expect(isCancelled(error)).toBe(true);
    expect(isCancelled(new DeadlineExceededError('create', 1))).toBe(false);
    await expect(bounded.create('key', {})).rejects.toBeInstanceOf(CallCancelledError);
  });
});

describe('callDeadlinesFromEnv', () => {
  it('reads seconds per call type and names a bad setting', () => {
    expect(callDeadlinesFromEnv({ CAIRN_DRIVER_TIMEOUT_OBSERVE_SECONDS: '5', CAIRN_DRIVER_TIMEOUT_LONG_SECONDS: '0.5' })).toEqual({ observe: 5_000, long: 500 });
    expect(callDeadlinesFromEnv({})).toEqual({});
    expect(() => callDeadlinesFromEnv({ CAIRN_DRIVER_TIMEOUT_WRITE_SECONDS: 'soon' })).toThrow(
      'CAIRN_DRIVER_TIMEOUT_WRITE_SECONDS must be a positive number of seconds, got "soon"',
    );
  });
});
