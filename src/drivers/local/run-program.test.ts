/**
 * @module A program run for a driver call is killed when the call is given up: its signal fires
 * (the call's deadline, cairn stopping) and the wait ends with the reason, instead of lasting as
 * long as the program does.
 */
import { describe, expect, it } from 'vitest';
import { runProgram } from './run-program.js';

describe('runProgram with a signal', () => {
  it('kills the program when the signal fires and says why', async () => {
    const controller = new AbortController();
    const waited = runProgram('/bin/sleep', ['600'], { signal: controller.signal }).then(() => 'finished', (error: unknown) => error);
    controller.abort(new Error('create took longer than its deadline of 1 s and was abandoned'));
    const error = await waited;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('sleep was abandoned: create took longer than its deadline of 1 s and was abandoned');
  });

  it('does not start a program for a call already given up', async () => {
    await expect(runProgram('/bin/sleep', ['600'], { signal: AbortSignal.abort(new Error('cairn is stopping')) })).rejects.toThrow('sleep was abandoned: cairn is stopping');
  });

  it('runs to completion when the signal does not fire', async () => {
    expect((await runProgram('/bin/echo', ['done'], { signal: new AbortController().signal })).stdout).toBe('done\n');
  });
});
