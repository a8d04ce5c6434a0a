/**
 * @module `cairn serve` replicas on one shared store for the benchmarks: R compiled processes,
 * each with its own data dir and the same CAIRN_STORE and CAIRN_MASTER_KEY, a wait until their
 * /readyz shards cover all 32 in fair shares, and each one's peak RSS (VmHWM) before it stops.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startListening, type ListeningProcess } from './listening-process.js';
import { CAIRN_BIN } from './repo-paths.js';

/** The uid space's shards (src/reconcile/shard-ownership.ts). */
export const SHARD_COUNT = 32;
const SHARE_POLL_MS = 200;

export interface ServeReplica {
  index: number;
  process: ListeningProcess;
}

export interface ShareReadiness {
  /** Shards each replica held when they first shared all 32 fairly. */
  shards: number[];
  /** From the last replica listening to the fair share. */
  waitedMs: number;
}

interface Readyz {
  status: string;
  shards?: number[];
}

/**
 * Starts `cairn serve --port 0 --data-dir <root>/replica-<i>` R times, one after the other (the
 * first runs the store's migrations), with `env` (CAIRN_STORE, CAIRN_MASTER_KEY, ...) added.
 * On a failure, stops those already started.
 */
export async function startServeReplicas(count: number, root: string, env: NodeJS.ProcessEnv): Promise<ServeReplica[]> {
  const replicas: ServeReplica[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const serve = await startListening([CAIRN_BIN, 'serve', '--port', '0', '--data-dir', join(root, `replica-${index}`)], { env, timeoutMs: 60_000 });
      replicas.push({ index, process: serve });
    }
    return replicas;
  } catch (error) {
    await stopServeReplicas(replicas);
    throw error;
  }
}

async function readyz(replica: ServeReplica): Promise<Readyz> {
  try {
    const response = await fetch(`${replica.process.url}/readyz`);
    return (await response.json()) as Readyz;
  } catch (error) {
    return { status: `unreachable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** True when the replicas' shards are disjoint, cover all 32, and each holds at least its floor share. */
function sharedFairly(held: readonly (readonly number[])[]): boolean {
  const all = held.flat();
  const floor = Math.floor(SHARD_COUNT / held.length);
  return all.length === SHARD_COUNT && new Set(all).size === SHARD_COUNT && held.every((shards) => shards.length >= floor);
}

/** Polls every replica's /readyz until they share the 32 shards fairly; throws after `timeoutMs`. */
export async function waitForFairShare(replicas: readonly ServeReplica[], timeoutMs: number): Promise<ShareReadiness> {
  const started = performance.now();
  let last: Readyz[] = [];
  while (performance.now() - started < timeoutMs) {
    last = await Promise.all(replicas.map(readyz));
    const held = last.map((body) => body.shards ?? []);
    if (last.every((body) => body.status === 'ready') && sharedFairly(held)) {
      return { shards: held.map((shards) => shards.length), waitedMs: performance.now() - started };
    }
    await new Promise((resolve) => setTimeout(resolve, SHARE_POLL_MS));
  }
  const seen = last.map((body, i) => `replica ${i}: ${body.status}, ${body.shards?.length ?? 0} shards`).join('; ');
  throw new Error(`the ${replicas.length} replicas did not share the ${SHARD_COUNT} shards within ${Math.round(timeoutMs / 1000)} s (${seen})`);
}

/** Peak resident set (VmHWM, KiB) of a running process from /proc; null when unreadable. */
export function peakRssKb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/** SIGTERM to every replica at once (SIGKILL after a few seconds), waiting until all have exited. */
export async function stopServeReplicas(replicas: readonly ServeReplica[]): Promise<void> {
  await Promise.all(replicas.map((replica) => replica.process.stop()));
}
