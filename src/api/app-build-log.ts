/**
 * @module The log of a deployment the reconciler has not kept one for yet: read live from the
 * App's runtime while it is under way, or a line saying why there is none.
 */
import type { StoredResource } from '../model/resource.js';
import { readDeploymentLog } from '../reconcile/deployment-log.js';
import type { DeploymentRecord } from '../store/records.js';
import type { ApiDeps } from './deps.js';
import type { ResourceLookup } from './records/lookup.js';
import { runtimeOf } from './runtime-access.js';

export async function liveBuildLog(deps: ApiDeps, lookup: ResourceLookup, app: StoredResource<'App'>, deployment: DeploymentRecord): Promise<string> {
  if (deployment.startedAt === null) return `deployment ${deployment.version} is ${deployment.status}: its build has not started\n`;
  if (deployment.finishedAt !== null) return `deployment ${deployment.version} ${deployment.status}; no build output was kept for it\n`;
  const { runtime, externalId } = await runtimeOf(deps.drivers, lookup, app);
  return readDeploymentLog(runtime.apps, externalId, deployment.startedAt);
}
