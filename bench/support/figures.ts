/**
 * @module How the benchmarks print numbers: seconds, milliseconds, megabytes, counts with thousands
 * separators, ratios, percentages, and a target check (a limit or a minimum) beside a figure.
 */

/** `0.84 s`; `—` when unknown. */
export function seconds(ms: number | null | undefined, digits = 2): string {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? '—' : `${(ms / 1000).toFixed(digits)} s`;
}

/** KiB as `142 MB` (10^6 bytes); `—` when unknown. */
export function megabytes(kb: number | null | undefined): string {
  return kb === null || kb === undefined ? '—' : `${Math.round((kb * 1024) / 1e6)} MB`;
}

/** `1,012`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1.5x`. */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)}x` : '—';
}

/** `ok` when `value` is within `limit`, `OVER` when not, `?` when unknown. */
export function verdict(value: number | null | undefined, limit: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '?';
  return value <= limit ? 'ok' : 'OVER';
}

/** Pads a cell on the right (or the left for `align: 'right'`). */
export function cell(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  return align === 'left' ? text.padEnd(width) : text.padStart(width);
}

/** `ok` when `value` reaches `floor`, `UNDER` when not, `?` when unknown (for targets that are minimums). */
export function atLeast(value: number | null | undefined, floor: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '?';
  return value >= floor ? 'ok' : 'UNDER';
}

/** `34%`; `—` when unknown. */
export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined || !Number.isFinite(fraction) ? '—' : `${Math.round(fraction * 100)}%`;
}

/** Latency as `2.4 ms` (`13 ms` from 10 up); `—` when unknown. */
export function millis(ms: number | null | undefined): string {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? '—' : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}
