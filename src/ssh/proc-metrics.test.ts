import { describe, expect, it } from 'vitest';
import { parseCpuLine, parseDf, parseMeminfo, ProcMetricsParseError } from './proc-metrics.js';

describe('parsing /proc and df output', () => {
  it('reads the cpu line, meminfo and df -P', () => {
    expect(parseCpuLine('cpu  100 0 50 800 50 0 0 0 0 0')).toEqual({ busy: 150, total: 1000 });
    expect(parseMeminfo('MemTotal:       1000 kB\nMemAvailable:    250 kB\n')).toBe(75);
    const df = 'Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/my disk     100000    30000     70000      30% /\n';
    expect(parseDf(df)).toBe(30);
  });

  it('refuses output that is not what it should be, quoting it', () => {
    expect(() => parseCpuLine('intr 1 2 3')).toThrow(ProcMetricsParseError);
    expect(() => parseCpuLine('cpu a b c d e')).toThrow(/non-number/);
    expect(() => parseMeminfo('MemTotal: 1000 kB\n')).toThrow(/MemAvailable/);
    expect(() => parseDf('df: /: No such file or directory')).toThrow(/POSIX header.*No such file/);
  });
});
