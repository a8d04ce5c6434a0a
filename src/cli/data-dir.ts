/**
 * @module Where a command keeps its state: `--data-dir`, else CAIRN_DATA_DIR, else ./.cairn.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';

export const DEFAULT_DATA_DIR = '.cairn';

export function addDataDirOption(command: Command): Command {
  return command.option('--data-dir <dir>', 'state directory (env CAIRN_DATA_DIR; default ./.cairn)');
}

export function resolveDataDir(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(option ?? env.CAIRN_DATA_DIR ?? DEFAULT_DATA_DIR);
}
