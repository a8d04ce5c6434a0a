/**
 * @module What the crash tests of `cairn serve --watch` share: serve started on a data dir and a
 * watched manifest directory, the phase of each declared Database and App as the store records
 * it, and the kill loop — the workloads declared or removed at random, serve started, SIGKILLed
 * a seeded random moment after it starts reconciling (`CAIRN_CRASH_SEED` replays), and what
 * must hold whenever cairn is not running checked after every kill.
 */
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { Store } from '../../src/store/store.js';
import { collect, spawnCairn } from './cairn-process.js';
import { crashSeed, seededRandom } from './seeded-random.js';
import { until } from './until.js';

export interface WatchingServe {
  child: ChildProcess;
  output: () => string;
}

/** `cairn serve --watch manifests` on `dataDir`, its output collected. */
export function startWatchingServe(dataDir: string, manifests: string, env: NodeJS.ProcessEnv, cwd?: string): WatchingServe {
  const child = spawnCairn(['serve', '--port', '0', '--data-dir', dataDir, '--watch', manifests], { env, ...(cwd ? { cwd } : {}) });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** The phase of each Database and App the store holds, by name ("pending (…)" while its generation is not yet observed, "deleting (…)" once its removal is asked). */
export function workloadPhases(dataDir: string): Record<string, string> {
  const store = Store.open(dataDir);
  try {
    const result: Record<string, string> = {};
    for (const kind of ['Database', 'App'] as const) {
      for (const r of store.resources.list({ tenant: 'default', kind })) {
        const ready = r.status.conditions.find((c) => c.type === 'Ready');
        const detail = `${r.status.phase}: ${ready?.reason ?? ''} ${ready?.message ?? ''}`;
        if (r.deletionTimestamp) result[r.name] = `deleting (${detail})`;
        else result[r.name] = r.status.observedGeneration === r.generation ? r.status.phase : `pending (${detail})`;
      }
    }
    return result;
  } finally {
    store.close();
  }
}

/**
 * Waits up to two minutes for the workloads' phases to satisfy `reached`; a timeout tells the
 * story: `context` (the seed and what the host holds) and the end of what serve printed.
 */
export async function untilPhases(serve: WatchingServe, dataDir: string, what: string, reached: (phases: Record<string, string>) => boolean, context: () => string): Promise<void> {
  await until(what, () => Promise.resolve(workloadPhases(dataDir)), reached, 120_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${context()}\nserve said:\n${serve.output().slice(-3000)}`);
  });
}

export interface KillLoop {
  /** Names the run in the seed line it prints. */
  label: string;
  kills: number;
  /** Declares the workloads (true) or removes them (false). */
  declare: (withWorkloads: boolean) => void;
  start: () => WatchingServe;
  /** What must hold whenever cairn is not running; `context` names the seed and the moment. */
  afterKill: (context: string) => void;
}

/** Runs the kill loop and returns its seed; every kill must land on a running serve. */
export async function killAtSeededMoments(loop: KillLoop): Promise<number> {
  const seed = crashSeed(`${loop.label}, ${loop.kills} kills`);
  const random = seededRandom(seed);
  let landed = 0;
  for (let kill = 0; kill < loop.kills; kill++) {
    const withWorkloads = kill === 0 || random() < 0.65;
    loop.declare(withWorkloads);
    const serve = loop.start();
    const done = collect(serve.child, { timeoutMs: 60_000 });
    // The kill comes a random moment after serve starts reconciling, when creates, deploys,
    // final backups and deletes are under way.
    const delay = Math.floor(random() * 4000);
    await until('serve to start reconciling', () => Promise.resolve(serve.output()), (text) => /reconciling/.test(text) || serve.child.exitCode !== null, 30_000);
    await new Promise((resolve) => setTimeout(resolve, delay));
    serve.child.kill('SIGKILL');
    const result = await done;
    if (result.signal === 'SIGKILL') landed++;
    loop.afterKill(`seed ${seed}, run ${kill} (${withWorkloads ? 'declared' : 'removed'}) killed ${delay} ms into reconciling`);
  }
  expect(landed, `seed ${seed}: kills that interrupted a running serve`).toBe(loop.kills);
  return seed;
}
