/**
 * @module How a sandbox app moves: a new release, a start or a stop becomes a change of its row
 * (transitional status until a time) plus the system log lines the simulated runtime records
 * for it — its immediate steps stamped now, its outcome stamped when the transition ends.
 * Nothing is built or run; the lines say so where it matters.
 */
import type { AppReleaseConfig } from '../release-digest.js';
import type { LogLineRow } from '../store/app-logs-table.js';
import type { AppChange, AppRow } from '../store/apps-table.js';
import { isBusy, startTransition, type BusyFields } from '../transitions.js';

export interface Rollout {
  change: Pick<AppChange, 'state' | 'busy_status' | 'busy_until_ms'>;
  lines: LogLineRow[];
  /** False when a transition already in flight (a stop) carries on untouched. */
  replacesTransition: boolean;
}

const SETTLED: BusyFields = { busy_status: null, busy_until_ms: 0 };

function system(ts_ms: number, line: string): LogLineRow {
  return { ts_ms, stream: 'system', line };
}

/** The source in words; a git URL loses any user and password it carries. */
function describeSource(source: Record<string, unknown>): string {
  const git = source['git'] as { url?: string; ref?: string; path?: string } | undefined;
  if (git) {
    const url = (git.url ?? '').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
    const path = git.path && git.path !== '.' ? ` (path ${git.path})` : '';
    return `git ${url}${git.ref ? ` at ${git.ref}` : ''}${path}`;
  }
  if (typeof source['image'] === 'string') return `image ${source['image']}`;
  return `path ${String(source['path'])}`;
}

/** The lines of starting `release` with `config`: command and port now; health check and "started" when it ends. */
function startLines(release: number, config: AppReleaseConfig, nowMs: number, endMs: number): LogLineRow[] {
  const command = config.command === null ? 'the default command' : `"${config.command}"`;
  const port = config.port === null ? 'no port' : `port ${config.port}`;
  const lines = [system(nowMs, `release ${release}: starting ${command} on ${port}`)];
  if (config.health_check_path !== null) {
    lines.push(system(endMs, `release ${release}: health check GET ${config.health_check_path} answered 200 (simulated)`));
  }
  lines.push(system(endMs, `release ${release}: started`));
  return lines;
}

function stopLines(row: AppRow, nowMs: number, durationMs: number): Rollout {
  const transition = startTransition('stopping', nowMs, durationMs);
  return {
    change: { state: 'stopped', ...transition },
    lines: [system(nowMs, `release ${row.release}: stopping`), system(transition.busy_until_ms, `release ${row.release}: stopped`)],
    replacesTransition: true,
  };
}

/** A new release of `config` (numbered `release`), started when `state` is running. */
export function releaseRollout(
  release: number, config: AppReleaseConfig, state: 'running' | 'stopped', nowMs: number, durationMs: number,
): Rollout {
  const lines = [system(nowMs, `release ${release}: deploying ${describeSource(config.source)}`)];
  if (config.build !== null) lines.push(system(nowMs, `release ${release}: build command run (simulated, nothing was executed): ${config.build}`));
  if (state === 'stopped') {
    lines.push(system(nowMs, `release ${release}: not started: the app's state is stopped`));
    return { change: { state, ...SETTLED }, lines, replacesTransition: true };
  }
  const transition = startTransition('deploying', nowMs, durationMs);
  return { change: { state, ...transition }, lines: [...lines, ...startLines(release, config, nowMs, transition.busy_until_ms)], replacesTransition: true };
}

/**
 * A redeploy of `row` with `config` as release `row.release + 1`: started when `state` is
 * running; else recorded, while a running app stops its old release and a stopped (or
 * stopping) one carries on as it was.
 */
export function redeployRollout(row: AppRow, config: AppReleaseConfig, state: 'running' | 'stopped', nowMs: number, durationMs: number): Rollout {
  const next = releaseRollout(row.release + 1, config, state, nowMs, durationMs);
  if (state === 'running') return next;
  if (row.state === 'stopped') {
    return { change: { state, busy_status: row.busy_status, busy_until_ms: row.busy_until_ms }, lines: next.lines, replacesTransition: false };
  }
  const stop = stopLines(row, nowMs, durationMs);
  return { change: stop.change, lines: [...stop.lines.slice(0, 1), ...next.lines, ...stop.lines.slice(1)], replacesTransition: true };
}

/** Starting or stopping the current release; null when the app is already settled in (or heading to) `state`. */
export function stateRollout(row: AppRow, config: AppReleaseConfig, state: 'running' | 'stopped', nowMs: number, durationMs: number): Rollout | null {
  if (state === row.state) return null;
  if (state === 'stopped') return stopLines(row, nowMs, durationMs);
  const transition = startTransition('deploying', nowMs, durationMs);
  return { change: { state, ...transition }, lines: startLines(row.release, config, nowMs, transition.busy_until_ms), replacesTransition: true };
}

/** The line that says a transition in flight was cut short, if one was. */
export function interruptedLine(row: AppRow, nowMs: number, by: string): LogLineRow | null {
  return isBusy(row, nowMs) ? system(nowMs, `release ${row.release}: ${row.busy_status ?? 'transition'} interrupted by ${by}`) : null;
}
