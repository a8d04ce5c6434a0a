/**
 * @module A deployment's build and start output: what the App's runtime logged from the moment
 * its rollout began (fetch, build, start, health check), as plain text, one `ts stream line`
 * per entry. The reconciler keeps it with the deployment when the rollout settles; the API reads
 * it live while the deployment is still under way.
 */
import type { AppLogLine, AppRuntime } from '../drivers/contract.js';

/** The most log entries one read returns (the runtime contract's cap on `tail`). */
export const DEPLOYMENT_LOG_ENTRIES = 1000;

export function deploymentLogText(lines: readonly AppLogLine[]): string {
  return lines.map((l) => `${l.ts} ${l.stream} ${l.line}\n`).join('');
}

/** What the runtime logged for the App since `startedAt`: the deployment's build and start. */
export async function readDeploymentLog(runtime: AppRuntime, externalId: string, startedAt: string): Promise<string> {
  return deploymentLogText(await runtime.logs(externalId, { tail: DEPLOYMENT_LOG_ENTRIES, since: startedAt }));
}
