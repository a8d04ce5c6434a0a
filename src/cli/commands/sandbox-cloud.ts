/**
 * @module `cairn sandbox-cloud`: runs the sandbox cloud (cairn's simulated vendor) on its own,
 * in the foreground, until SIGINT or SIGTERM. Providers reach it with `spec.endpoint`.
 */
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';

export const DEFAULT_SANDBOX_CLOUD_PORT = 9100;

interface SandboxCloudCommandOptions {
  port: string;
  dataDir?: string;
  host: string;
  latencyMs?: string;
  errorRate?: string;
  rateLimit?: string;
  token?: string;
  provisionMs?: string;
  seed?: string;
}

interface NumberRule {
  min: number;
  max: number;
  integer: boolean;
}

/** A numeric option's value, or a CliError that names the flag and the accepted range. */
export function parseNumberFlag(flag: string, text: string | undefined, rule: NumberRule): number | undefined {
  if (text === undefined) return undefined;
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value) || value < rule.min || value > rule.max || (rule.integer && !Number.isInteger(value))) {
    const kind = rule.integer ? 'an integer' : 'a number';
    throw new CliError(`${flag} must be ${kind} from ${rule.min} to ${rule.max}, got "${text}"`);
  }
  return value;
}

export function registerSandboxCloudCommand(program: Command): void {
  addDataDirOption(
    program
      .command('sandbox-cloud')
      .description('run the sandbox cloud (a simulated vendor for tests, demos and benchmarks) in the foreground')
      .option('--port <n>', 'port to listen on (0 picks a free one)', String(DEFAULT_SANDBOX_CLOUD_PORT))
      .option('--host <host>', 'address to listen on (loopback only)', '127.0.0.1')
      .option('--latency-ms <ms>', 'delay added to every request')
      .option('--error-rate <r>', 'probability (0..1) that a request gets an injected fault')
      .option('--rate-limit <per-second>', 'requests per second before answering 429')
      .option('--token <t>', 'accept only this bearer token (default: any non-empty token)')
      .option('--provision-ms <ms>', 'how long new servers stay provisioning (default 1000)')
      .option('--seed <n>', 'seed for the fault dice, to repeat a run'),
  ).action(async (options: SandboxCloudCommandOptions) => {
    if (options.host !== '127.0.0.1') throw new CliError(`--host must be 127.0.0.1: the sandbox cloud listens on loopback only, got "${options.host}"`);
    if (options.token !== undefined && options.token === '') throw new CliError('--token must not be empty');
    // Loaded here so that other commands do not pay for the sandbox's HTTP stack at start-up.
    const { startSandboxCloud } = await import('../../sandbox-cloud/index.js');
    const cloud = await startSandboxCloud({
      dataDir: resolveDataDir(options.dataDir),
      host: '127.0.0.1',
      port: parseNumberFlag('--port', options.port, { min: 0, max: 65_535, integer: true }),
      latencyMs: parseNumberFlag('--latency-ms', options.latencyMs, { min: 0, max: 600_000, integer: false }),
      errorRate: parseNumberFlag('--error-rate', options.errorRate, { min: 0, max: 1, integer: false }),
      rateLimitPerSecond: parseNumberFlag('--rate-limit', options.rateLimit, { min: 0, max: 1_000_000, integer: false }),
      provisionMs: parseNumberFlag('--provision-ms', options.provisionMs, { min: 0, max: 3_600_000, integer: false }),
      seed: parseNumberFlag('--seed', options.seed, { min: 0, max: 2 ** 32 - 1, integer: true }),
      token: options.token,
    }).catch((error: unknown) => {
      throw new CliError(error instanceof Error ? error.message : String(error));
    });
    console.log(`sandbox cloud (simulated vendor) listening on ${cloud.url}`);
    await new Promise<void>((resolve, reject) => {
      const shutdown = (): void => {
        process.off('SIGINT', shutdown);
        process.off('SIGTERM', shutdown);
        cloud.close().then(resolve, reject);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
    });
  });
}
