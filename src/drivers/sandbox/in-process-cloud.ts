/**
 * @module The sandbox cloud that runs inside cairn when a Provider names no endpoint: one per
 * data dir per process, shared by every sandbox driver made for it, and closed when the last
 * of them lets go.
 */
import { resolve } from 'node:path';
import type { SandboxCloud, SandboxCloudOptions } from '../../sandbox-cloud/index.js';

interface SharedCloud {
  cloud: Promise<SandboxCloud>;
  holders: number;
}

const shared = new Map<string, SharedCloud>();

/** A hold on the in-process sandbox cloud of one data dir; `release` exactly once. */
export interface InProcessCloudLease {
  url: string;
  release: () => Promise<void>;
}

/** Starts the data dir's in-process sandbox cloud, or joins the one already running. */
export async function acquireInProcessCloud(
  dataDir: string,
  options: Omit<SandboxCloudOptions, 'dataDir' | 'port' | 'host'> = {},
): Promise<InProcessCloudLease> {
  const key = resolve(dataDir);
  let entry = shared.get(key);
  if (!entry) {
    // Loaded on first use, so commands that never start a sandbox do not pay for its HTTP stack.
    const cloud = import('../../sandbox-cloud/index.js').then(({ startSandboxCloud }) => startSandboxCloud({ ...options, dataDir: key, port: 0 }));
    const started: SharedCloud = { cloud, holders: 0 };
    shared.set(key, started);
    started.cloud.catch(() => {
      if (shared.get(key) === started) shared.delete(key);
    });
    entry = started;
  }
  entry.holders += 1;
  const held = entry;
  let cloud: SandboxCloud;
  try {
    cloud = await held.cloud;
  } catch (error) {
    held.holders -= 1;
    throw error;
  }
  let released = false;
  return {
    url: cloud.url,
    release: async (): Promise<void> => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0) return;
      if (shared.get(key) === held) shared.delete(key);
      await cloud.close();
    },
  };
}

/** How many in-process sandbox clouds are running (for tests and diagnostics). */
export function runningInProcessClouds(): number {
  return shared.size;
}
