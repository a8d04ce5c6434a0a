/**
 * The SSH apps' pure parts: the supervisor's log lines read back (ordered, tail, since, cut-short
 * lines skipped), the env file quoted for the shell that sources it (a value never becomes code),
 * and systemd unit arguments escaped (specifiers, variables, quotes).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTILE_ARGUMENTS } from '../../../test/support/hostile-arguments.js';
import { parseLogLines } from './app-log-lines.js';
import { systemdQuote, unitText } from './app-services.js';
import { envFileText } from './apps.js';

describe('app log lines', () => {
  const text = [
    '2026-01-01T00:00:02.000Z stdout second',
    '2026-01-01T00:00:01.000Z system first, written by cairn',
    '2026-01-01T00:00:03.000Z stderr third has  two spaces',
    '2026-01-01T00:00:0', // cut short by a rotation
    '2026-01-01T00:00:04.000Z stdout ',
  ].join('\n');

  it('reads entries oldest first, with tail and since', () => {
    const lines = parseLogLines(text, {});
    expect(lines.map((l) => l.line)).toEqual(['first, written by cairn', 'second', 'third has  two spaces', '']);
    expect(lines[0]).toEqual({ ts: '2026-01-01T00:00:01.000Z', stream: 'system', line: 'first, written by cairn' });
    expect(parseLogLines(text, { tail: 2 }).map((l) => l.line)).toEqual(['third has  two spaces', '']);
    expect(parseLogLines(text, { since: '2026-01-01T00:00:03.000Z' }).map((l) => l.stream)).toEqual(['stderr', 'stdout']);
  });
});

describe('the env file', () => {
  it('gives back every value exactly when sourced by sh, running nothing', () => {
    const values = Object.fromEntries(HOSTILE_ARGUMENTS.map((value, i) => [`V${i}`, value.replace(/\0/g, '')]));
    const script = `set -a; . "$1"; set +a; printf '%s\\0' ${Object.keys(values).map((n) => `"$${n}"`).join(' ')}`;
    const file = join(mkdtempSync(join(tmpdir(), 'cairn-env-')), 'env');
    writeFileSync(file, envFileText(values));
    const out = execFileSync('sh', ['-c', script, 'sh', file], { encoding: 'utf8' });
    rmSync(dirname(file), { recursive: true });
    expect(out.split('\0').slice(0, -1)).toEqual(Object.values(values));
  });
});

describe('systemd units', () => {
  it('escapes quotes, backslashes, specifiers and variables in ExecStart arguments', () => {
    expect(systemdQuote('/srv/a b/%h/$HOME/"q"\\')).toBe('"/srv/a b/%%h/$$HOME/\\"q\\"\\\\"');
    expect(() => systemdQuote('a\nb')).toThrow(/control characters/);
    const unit = unitText('cairn app x', '/var/lib/cairn/bin/cairn-supervise', '/var/lib/cairn/apps/a/services/r1', '/var/lib/cairn/apps/a/logs/app.log');
    expect(unit).toContain('ExecStart="/var/lib/cairn/bin/cairn-supervise" "/var/lib/cairn/apps/a/services/r1" "/var/lib/cairn/apps/a/logs/app.log"');
    expect(unit).toContain('Restart=always');
  });
});
