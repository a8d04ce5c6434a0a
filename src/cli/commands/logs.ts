/**
 * @module `cairn logs APP [--tail N] [--since TS] [-f]`: an app's output (stdout, stderr and
 * what cairn said about its releases), read from its runtime through the app's provider;
 * `-f` keeps printing new lines until interrupted.
 */
import type { Command } from 'commander';
import { ResourceLookup } from '../../api/records/lookup.js';
import { runtimeOf } from '../../api/runtime-access.js';
import type { AppLogLine } from '../../drivers/contract.js';
import { DEFAULT_TENANT } from '../../model/resource.js';
import { driverPoolFor } from '../../reconcile/driver-pool.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';

const FOLLOW_INTERVAL_MS = 1_000;
const MAX_TAIL = 1000;

interface LogsOptions {
  namespace: string;
  tail: string;
  since?: string;
  follow?: boolean;
  dataDir?: string;
}

function format(line: AppLogLine): string {
  return `${line.ts} ${line.stream.padEnd(6)} ${line.line}`;
}

function parseTail(text: string): number {
  const tail = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(tail >= 1 && tail <= MAX_TAIL)) throw new CliError(`--tail must be a whole number from 1 to ${MAX_TAIL}, got "${text}"`);
  return tail;
}

function parseSince(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new CliError(`--since must be a timestamp such as 2026-01-31T12:00:00Z, got "${text}"`);
  return new Date(at).toISOString();
}

export function registerLogsCommand(program: Command): void {
  addDataDirOption(
    program
      .command('logs')
      .description("print an app's logs (its output and its releases), optionally following them")
      .argument('<app>', 'the App name')
      .option('-n, --namespace <namespace>', 'the namespace', 'default')
      .option('--tail <n>', 'how many of the newest lines (1-1000)', '100')
      .option('--since <timestamp>', 'only lines at or after this time')
      .option('-f, --follow', 'keep printing new lines until interrupted'),
  ).action(async (name: string, options: LogsOptions) => {
    const tail = parseTail(options.tail);
    const since = parseSince(options.since);
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    const pool = driverPoolFor(store, dataDir, 10_000);
    let interrupted = false;
    const interrupt = (): void => {
      interrupted = true;
    };
    process.once('SIGINT', interrupt);
    try {
      const app = store.resources.find(DEFAULT_TENANT, { kind: 'App', namespace: options.namespace, name });
      if (!app) throw new CliError(`App "${name}" not found in namespace ${options.namespace}`);
      const placed = await runtimeOf(pool, new ResourceLookup(store, DEFAULT_TENANT), app);
      const runtime = placed.runtime.apps;
      const externalId = placed.externalId;
      let lines = await runtime.logs(externalId, { tail, ...(since !== undefined ? { since } : {}) });
      for (const line of lines) console.log(format(line));
      // Following: ask for what came at or after the last line printed; skip the lines already printed at that instant.
      while (options.follow && !interrupted) {
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
        const last = lines[lines.length - 1];
        const printed = new Set(last ? lines.filter((l) => l.ts === last.ts).map(format) : []);
        const next = await runtime.logs(externalId, { tail: MAX_TAIL, ...(last ? { since: last.ts } : since !== undefined ? { since } : {}) });
        const fresh = next.filter((l) => !printed.has(format(l)));
        for (const line of fresh) console.log(format(line));
        if (fresh.length > 0) lines = next;
      }
    } finally {
      process.off('SIGINT', interrupt);
      await pool.close();
      store.close();
    }
  });
}
