/**
 * @module A server's CPU, memory and disk use read over SSH from what Linux exposes: two samples
 * of the `cpu` line of /proc/stat one second apart, MemTotal and MemAvailable of /proc/meminfo,
 * and `df -P /`, in one remote command. Output that does not look like those files is refused
 * with an error quoting it, never guessed at.
 */
import type { ServerMetrics } from '../drivers/contract.js';
import type { RunOptions, SshSession } from './session.js';

/** The remote output could not be read as /proc/stat, /proc/meminfo or `df -P` output. */
export class ProcMetricsParseError extends Error {
  constructor(what: string, output: string) {
    super(`cannot read server metrics: ${what} (output was ${JSON.stringify(output.slice(0, 300))})`);
    this.name = 'ProcMetricsParseError';
  }
}

/** A constant script (no caller input): sections separated by marker lines. */
const SCRIPT = [
  'LC_ALL=C; export LC_ALL',
  'echo @stat1; head -n 1 /proc/stat',
  'sleep 1',
  'echo @stat2; head -n 1 /proc/stat',
  "echo @meminfo; grep -E '^(MemTotal|MemAvailable):' /proc/meminfo",
  'echo @df; df -P /',
].join('\n');

interface CpuSample {
  busy: number;
  total: number;
}

function section(output: string, name: string): string {
  const match = new RegExp(`^@${name}\\n([\\s\\S]*?)(?=^@|(?![\\s\\S]))`, 'm').exec(output);
  if (!match) throw new ProcMetricsParseError(`no ${name} section`, output);
  return match[1] ?? '';
}

/** The cpu line of /proc/stat: user nice system idle iowait irq softirq steal [guest guest_nice]. */
export function parseCpuLine(text: string): CpuSample {
  const fields = text.trim().split(/\s+/);
  if (fields[0] !== 'cpu' || fields.length < 5) throw new ProcMetricsParseError('the first line of /proc/stat is not the "cpu" line', text);
  const values = fields.slice(1, 9).map(Number);
  if (values.some((v) => !Number.isFinite(v) || v < 0)) throw new ProcMetricsParseError('the /proc/stat cpu line holds a non-number', text);
  const total = values.reduce((sum, v) => sum + v, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

/** The used share of memory from MemTotal and MemAvailable (kB). */
export function parseMeminfo(text: string): number {
  const read = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    if (!match) throw new ProcMetricsParseError(`/proc/meminfo has no ${name} line (MemAvailable needs Linux 3.14 or later)`, text);
    return Number(match[1]);
  };
  const total = read('MemTotal');
  const available = read('MemAvailable');
  if (total <= 0) throw new ProcMetricsParseError('/proc/meminfo reports MemTotal 0', text);
  return (1 - available / total) * 100;
}

/** The used share of the root file system from `df -P /` (used / (used + available), as df's Capacity). */
export function parseDf(text: string): number {
  const lines = text.trim().split('\n');
  const header = lines[0] ?? '';
  const row = lines[lines.length - 1] ?? '';
  if (!/^Filesystem\s+\S+-blocks\s+Used\s+Avail/i.test(header) || lines.length < 2) throw new ProcMetricsParseError('`df -P /` did not print its POSIX header and a row', text);
  // The file system name may hold spaces; the five numeric-ish fields are at the end.
  const fields = row.trim().split(/\s+/);
  const used = Number(fields[fields.length - 4]);
  const available = Number(fields[fields.length - 3]);
  if (!Number.isFinite(used) || !Number.isFinite(available) || used < 0 || available < 0) throw new ProcMetricsParseError('the `df -P /` row has no used and available block counts', text);
  return used + available > 0 ? (used / (used + available)) * 100 : 0;
}

function percent(value: number): number {
  return Math.min(100, Math.max(0, Math.round(value * 10) / 10));
}

/** Measures the server behind `session` now (takes about one second). */
export async function readProcMetrics(session: SshSession, options: Pick<RunOptions, 'signal' | 'timeoutMs'> = {}): Promise<ServerMetrics> {
  const { stdout } = await session.run(['sh', '-c', SCRIPT], { timeoutMs: options.timeoutMs ?? 15_000, signal: options.signal });
  const first = parseCpuLine(section(stdout, 'stat1'));
  const second = parseCpuLine(section(stdout, 'stat2'));
  const total = second.total - first.total;
  const cpuPercent = percent(total > 0 ? ((second.busy - first.busy) / total) * 100 : 0);
  const memoryPercent = percent(parseMeminfo(section(stdout, 'meminfo')));
  const diskPercent = percent(parseDf(section(stdout, 'df')));
  const ts = new Date().toISOString();
  return { simulated: false, cpuPercent, memoryPercent, diskPercent, sampledAt: ts, series: [{ ts, cpuPercent, memoryPercent, diskPercent }] };
}
