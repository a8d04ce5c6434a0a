/**
 * @module vitest global setup: the tests that spawn `cairn` run the compiled CLI, as users do,
 * so dist/ is built here first when it is older than src/ (`npm ci` has built it in CI, so
 * there this costs one freshness check). Each spawned CLI then starts from compiled JavaScript
 * instead of transpiling src/ through tsx: less than half the CPU per spawn.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
// @ts-expect-error -- plain JavaScript beside the executable, without type declarations
import { staleDistReason } from '../../bin/dist-freshness.js';
import { REPO_ROOT } from './cairn-process.js';

const staleReason = staleDistReason as (root: string) => string | undefined;

export default function buildCompiledCli(): void {
  if (staleReason(REPO_ROOT) === undefined) return;
  const built = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'build-dist.js')], { cwd: REPO_ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the tests run the compiled CLI, and `npm run build` failed: fix what tsc printed above');
}
