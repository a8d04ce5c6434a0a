/**
 * @module Real use of this host's CPU, memory and disk: CPU from the kernel's counters between
 * two samples (os.cpus), memory from /proc/meminfo's MemAvailable (os.freemem elsewhere), disk
 * from statfs of the data dir's file system. A sampler keeps a short series (one point every
 * few seconds, the last few minutes) while a driver is open.
 */
import { statfsSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';
import type { ServerMetrics } from '../contract.js';

export interface MetricsPoint {
  ts: string;
  cpuPercent: number;
  memoryPercent: number;
  diskPercent: number;
}

interface CpuTimes {
  busy: number;
  total: number;
}

function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const t = cpu.times;
    const sum = t.user + t.nice + t.sys + t.idle + t.irq;
    total += sum;
    busy += sum - t.idle;
  }
  return { busy, total };
}

/** Bytes of memory available to new work: MemAvailable where the kernel says it, else free memory. */
function availableMemory(): number {
  try {
    const match = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match?.[1]) return Number(match[1]) * 1024;
  } catch {
    // not Linux: fall through
  }
  return freemem();
}

function round(value: number): number {
  return Math.min(100, Math.max(0, Math.round(value * 10) / 10));
}

/** Total and used bytes of the file system holding `path`. */
export function diskUsage(path: string): { totalBytes: number; usedBytes: number } {
  const fs = statfsSync(path);
  const totalBytes = fs.blocks * fs.bsize;
  return { totalBytes, usedBytes: totalBytes - fs.bavail * fs.bsize };
}

export class HostMetricsSampler {
  private last: CpuTimes = cpuTimes();
  private readonly series: MetricsPoint[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly diskPath: string, private readonly intervalMs = 5_000, private readonly keep = 60) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Takes a point now (CPU since the previous point) and keeps it in the series. */
  sample(): MetricsPoint {
    const now = cpuTimes();
    const total = now.total - this.last.total;
    const cpuPercent = total > 0 ? ((now.busy - this.last.busy) / total) * 100 : 0;
    this.last = now;
    const disk = diskUsage(this.diskPath);
    const point: MetricsPoint = {
      ts: new Date().toISOString(),
      cpuPercent: round(cpuPercent),
      memoryPercent: round((1 - availableMemory() / totalmem()) * 100),
      diskPercent: round(disk.totalBytes > 0 ? (disk.usedBytes / disk.totalBytes) * 100 : 0),
    };
    this.series.push(point);
    if (this.series.length > this.keep) this.series.shift();
    return point;
  }

  /** The current use with the series leading up to it, oldest first. */
  metrics(): ServerMetrics {
    const latest = this.series[this.series.length - 1];
    const point = latest && Date.now() - Date.parse(latest.ts) < 1_000 ? latest : this.sample();
    return { ...point, simulated: false, sampledAt: point.ts, series: [...this.series] };
  }

  close(): void {
    clearInterval(this.timer);
  }
}
