import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HOSTILE_ARGUMENTS } from '../../test/support/hostile-arguments.js';
import { quoteShellArg, shellCommand, UnquotableArgumentError } from './shell-quote.js';

const execFileAsync = promisify(execFile);


describe('quoteShellArg', () => {
  it('leaves plainly inert words alone and quotes everything else', () => {
    expect(quoteShellArg('pg_dump')).toBe('pg_dump');
    expect(quoteShellArg('/var/lib/x-1.2')).toBe('/var/lib/x-1.2');
    expect(quoteShellArg('')).toBe("''");
    expect(quoteShellArg("it's")).toBe(`'it'\\''s'`);
    expect(quoteShellArg('$(id)')).toBe(`'$(id)'`);
  });

  it('refuses NUL with an error saying why', () => {
    expect(() => quoteShellArg('a\0b')).toThrow(UnquotableArgumentError);
    expect(() => quoteShellArg('a\0b')).toThrow(/NUL/);
  });

  it('refuses an empty argv', () => {
    expect(() => shellCommand([])).toThrow(/argv is empty/);
  });

  it('delivers every hostile argument intact through a real sh -c', async () => {
    const line = shellCommand(['printf', '%s\\0', ...HOSTILE_ARGUMENTS]);
    const { stdout } = await execFileAsync('/bin/sh', ['-c', line], { encoding: 'buffer' });
    const received = stdout.toString('utf8').split('\0').slice(0, -1);
    expect(received).toEqual(HOSTILE_ARGUMENTS);
  });

  it('delivers each hostile argument alone as one word', async () => {
    for (const arg of HOSTILE_ARGUMENTS) {
      const { stdout } = await execFileAsync('/bin/sh', ['-c', `set -- ${quoteShellArg(arg)}; printf '%s|%s' "$#" "$1"`]);
      expect(stdout).toBe(`1|${arg}`);
    }
  });
});
