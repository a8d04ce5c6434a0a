/** @module Tests of KeyedSerial: one at a time and in order per key, keys independent, a failure not blocking what follows. */
import { describe, expect, it } from 'vitest';
import { KeyedSerial } from './keyed-serial.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedSerial', () => {
  it('runs work of one key in the order asked, even when the first is slower; other keys run alongside', async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const slow = serial.run('sub_1', async () => { log.push('a start'); await sleep(30); log.push('a end'); return 'a'; });
    const fast = serial.run('sub_1', async () => { log.push('b start'); await sleep(1); log.push('b end'); return 'b'; });
    const other = serial.run('sub_2', () => { log.push('c'); return Promise.resolve('c'); });
    expect(await Promise.all([slow, fast, other])).toEqual(['a', 'b', 'c']);
    expect(log.filter((l) => l !== 'c')).toEqual(['a start', 'a end', 'b start', 'b end']);
    expect(log.indexOf('c')).toBeLessThan(log.indexOf('a end'));
    await sleep(1);
    expect(serial.busyKeys).toBe(0);
  });

  it('goes on after a failure, which its caller still sees', async () => {
    const serial = new KeyedSerial();
    const failed = serial.run('k', () => Promise.reject(new Error('stripe down')));
    const next = serial.run('k', () => Promise.resolve(2));
    await expect(failed).rejects.toThrow('stripe down');
    expect(await next).toBe(2);
  });
});
