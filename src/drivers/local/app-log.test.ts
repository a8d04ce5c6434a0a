/**
 * @module Tests of an app's log file: entries read back oldest first by tail and since, rotation
 * past its size keeping a fixed number of files, and reads that span the rotated files.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppLog } from './app-log.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('an app log', () => {
  it('reads the newest lines oldest first, by tail and since', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-app-log-'));
    const log = new AppLog(dir);
    log.write('stdout', 'one');
    log.write('stderr', 'two');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date().toISOString();
    log.write('system', 'three');
    expect(log.read({}).map((l) => [l.stream, l.line])).toEqual([['stdout', 'one'], ['stderr', 'two'], ['system', 'three']]);
    expect(log.read({ tail: 2 }).map((l) => l.line)).toEqual(['two', 'three']);
    expect(log.read({ since }).map((l) => l.line)).toEqual(['three']);
  });

  it('rotates past its size, keeps a fixed number of files, and reads across them', () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-app-log-'));
    const log = new AppLog(dir, 1_000, 2);
    for (let i = 0; i < 100; i += 1) log.write('stdout', `line ${i} ${'x'.repeat(40)}`);
    expect(existsSync(join(dir, 'app.log.1'))).toBe(true);
    expect(existsSync(join(dir, 'app.log.2'))).toBe(true);
    expect(existsSync(join(dir, 'app.log.3'))).toBe(false);
    const lines = log.read({ tail: 1000 }).map((l) => l.line);
    expect(lines[lines.length - 1]).toMatch(/^line 99 /);
    expect(lines.length).toBeLessThan(100); // the oldest were rotated away
    const numbers = lines.map((l) => Number(l.split(' ')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new AppLog(dir, 1_000, 2).read({ tail: 1 })[0]?.line).toMatch(/^line 99 /); // reopened: same content
  });

  it('counts its size in bytes, so lines of multi-byte characters rotate before the file passes its size', () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-app-log-'));
    const log = new AppLog(dir, 320, 2); // each entry is 122 characters, 182 bytes
    for (let i = 0; i < 5; i += 1) {
      log.write('stdout', 'é'.repeat(60));
      expect(statSync(join(dir, 'app.log')).size).toBeLessThanOrEqual(320);
    }
  });
});
