/**
 * @module Deployments of apps: every rollout to the vendor belongs to one — the newest queued
 * through the API or a push webhook, or one the reconciler adds (trigger `config`) when the
 * configuration changed. When it settles, it keeps the runtime's log since its start (its build
 * and start output).
 * The requested deployment's id is part of the configuration digest, so asking for a
 * deployment is itself a change that rolls out a release. A deployment is deploying until its
 * release settles: succeeded (running or stopped, with the commit) or failed.
 */
import { createHash } from 'node:crypto';
import type { AppDesired, AppObserved, AppRuntime } from '../drivers/contract.js';
import { canonicalJson } from '../model/canonical-json.js';
import type { StoredResource } from '../model/resource.js';
import type { DeploymentRollout } from '../store/deployments.js';
import type { ReconcileContext } from './context.js';
import { readDeploymentLog } from './deployment-log.js';
import { classifyFailure, doing } from './errors.js';
import type { StatusDraft } from './status-draft.js';

export const REASON_DEPLOYMENT_SUCCEEDED = 'DeploymentSucceeded';
export const REASON_DEPLOYMENT_FAILED = 'DeploymentFailed';
export const REASON_DEPLOYMENT_REQUESTED = 'DeploymentRequested';

/** How many lines of build output a deployment keeps. */
export const BUILD_OUTPUT_LINES = 20;

/** The digest of what a rollout sends, and of the deployment it is for. */
export function configDigest(desired: AppDesired, deploymentId: string | undefined): string {
  return createHash('sha256').update(canonicalJson({ desired, deployment: deploymentId ?? null })).digest('hex');
}

/**
 * What a new rollout would be for — a changed configuration, or a release at the vendor that is
 * not the one cairn rolled out. A deployment requested through the API is not among them: that
 * is `requestedRollout`, a request rather than drift.
 */
export function rolloutDrift(ctx: ReconcileContext, r: StoredResource<'App'>, desired: AppDesired, observed: AppObserved): string[] {
  const current = ctx.store.deployments.current(r.uid);
  const requested = ctx.store.deployments.nextToRollOut(r.uid);
  if (current?.configDigest !== configDigest(desired, requested?.id ?? current?.id)) {
    return requested !== undefined && requested.trigger !== 'config' ? [] : [`configuration changed: deploying release ${observed.release + 1}`];
  }
  if (current.releaseDigest !== observed.releaseDigest) {
    return [`release ${observed.release} at the vendor is not the one cairn deployed: deploying again`];
  }
  return [];
}

/**
 * A deployment asked for through the API or a push webhook that is not rolled out yet: a change the user asked
 * for without a new generation, so neither drift nor subject to self-heal being off.
 */
export function requestedRollout(ctx: ReconcileContext, r: StoredResource<'App'>, desired: AppDesired, observed: AppObserved): { reason: string; message: string } | null {
  const requested = ctx.store.deployments.nextToRollOut(r.uid);
  if (requested === undefined || requested.trigger === 'config') return null;
  if (ctx.store.deployments.current(r.uid)?.configDigest === configDigest(desired, requested.id)) return null;
  return { reason: REASON_DEPLOYMENT_REQUESTED, message: `deployment ${requested.version} was requested: deploying release ${observed.release + 1}` };
}

/** Begins the deployment this rollout is for (the requested one, or a new `config` one). */
export function beginRollout(ctx: ReconcileContext, r: StoredResource<'App'>, draft: StatusDraft): DeploymentRollout {
  const deployment = ctx.store.deployments.nextToRollOut(r.uid) ?? ctx.store.deployments.addForConfig(r.tenant, r.uid);
  const begun = ctx.store.deployments.begin(deployment.id);
  draft.status.details = { ...draft.status.details, deploymentId: begun.id, deploymentVersion: begun.version };
  return begun;
}

/** The vendor took the rollout `beginRollout` began in this pass: ties its release to the deployment. */
export function recordRollout(ctx: ReconcileContext, draft: StatusDraft, desired: AppDesired, observed: AppObserved): void {
  const deploymentId = draft.status.details?.deploymentId;
  if (typeof deploymentId !== 'string') return;
  ctx.store.deployments.markRolledOut(deploymentId, {
    release: observed.release,
    configDigest: configDigest(desired, deploymentId),
    releaseDigest: observed.releaseDigest,
  });
}

/**
 * The vendor refused the rollout `beginRollout` began in this pass: its deployment fails with
 * the vendor's reason (a failure that may pass leaves it deploying, to be retried).
 */
export function failRollout(ctx: ReconcileContext, r: StoredResource<'App'>, draft: StatusDraft, error: unknown): void {
  const deploymentId = draft.status.details?.deploymentId;
  const failure = classifyFailure(error);
  if (typeof deploymentId !== 'string' || failure.kind !== 'stall') return;
  const deployment = ctx.store.deployments.rollout(deploymentId);
  if (deployment) finish(ctx, r, deployment, 'failed', failure.message, null, null);
}

/** What a failed release's deployment and app say: the vendor's reason when it gave one. */
export function releaseFailure(observed: AppObserved): string {
  return observed.failure ? `release ${observed.release} failed: ${observed.failure}` : `release ${observed.release} failed to start`;
}

/** Ends the current deployment once its release has settled at the vendor. */
export async function trackRollout(ctx: ReconcileContext, r: StoredResource<'App'>, observed: AppObserved, runtime: () => Promise<AppRuntime>): Promise<void> {
  const deployment = ctx.store.deployments.current(r.uid);
  if (!deployment || deployment.status !== 'deploying' || deployment.release === null) return;
  if (observed.release > deployment.release) {
    finish(ctx, r, deployment, 'failed', `release ${deployment.release} was replaced at the vendor by release ${observed.release}`, null, null);
    return;
  }
  if (observed.release < deployment.release) return;
  if (observed.status !== 'running' && observed.status !== 'stopped' && observed.status !== 'failed') return;
  const tail = r.spec.build ? await buildOutputTail(await runtime(), observed.id, deployment) : null;
  if (deployment.startedAt !== null) {
    const started = deployment.startedAt;
    const log = await doing('read the deployment\'s log', async () => readDeploymentLog(await runtime(), observed.id, started));
    ctx.store.deployments.keepBuildLog(deployment.id, log);
  }
  const serving = observed.servingRelease;
  if (serving !== undefined && serving !== null) {
    finish(ctx, r, deployment, 'failed', `${releaseFailure(observed)}; release ${serving} keeps serving`, null, tail);
  } else if (observed.status === 'failed') {
    finish(ctx, r, deployment, 'failed', releaseFailure(observed), null, tail);
  } else {
    finish(ctx, r, deployment, 'succeeded', `release ${observed.release} is ${observed.status}`, observed.commit, tail);
  }
}

function finish(
  ctx: ReconcileContext,
  r: StoredResource<'App'>,
  deployment: DeploymentRollout,
  status: 'succeeded' | 'failed',
  message: string,
  commit: string | null,
  buildOutputTail: string | null,
): void {
  ctx.store.deployments.finish(deployment.id, { status, message: status === 'failed' ? message : null, commit, buildOutputTail });
  const what = `deployment ${deployment.version} (${deployment.trigger}${commit ? `, commit ${commit}` : ''})`;
  if (status === 'succeeded') ctx.record(r, 'Normal', REASON_DEPLOYMENT_SUCCEEDED, `${what} succeeded: ${message}`);
  else ctx.record(r, 'Warning', REASON_DEPLOYMENT_FAILED, `${what} failed: ${message}`);
}

/** The last lines the vendor logged since the rollout began: the build's output and the start. */
async function buildOutputTail(runtime: AppRuntime, externalId: string, deployment: DeploymentRollout): Promise<string | null> {
  const query = deployment.startedAt ? { tail: BUILD_OUTPUT_LINES, since: deployment.startedAt } : { tail: BUILD_OUTPUT_LINES };
  const lines = await doing('read build output', () => runtime.logs(externalId, query));
  return lines.length > 0 ? lines.map((l) => l.line).join('\n') : null;
}
