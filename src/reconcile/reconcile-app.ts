/**
 * @module Apps: deployed on a Ready server through its provider's runtime, with the URLs of
 * their databases injected (DATABASE_URL for the first, <NAME>_URL for each, built from the
 * vendor's endpoint and the password cairn keeps). A new release is rolled out when the
 * configuration changes (spec, or an injected credential after a rotation), when a deployment
 * is requested through the API, or when the vendor's release no longer is the one cairn
 * deployed; each rollout is recorded as a deployment (see ./app-deployments.ts). Start and
 * stop actions end once the app has settled in spec.state. An App a migration made also gets its
 * sealed environment (src/migrations/sealed-env.ts) under spec.env, and may run from that
 * migration's unpacked source only in its own tenant.
 */
import type { AppDesired, AppObserved, AppRuntime } from '../drivers/contract.js';
import { connectionString } from '../model/connection-string.js';
import type { StoredResource } from '../model/resource.js';
import { beginRollout, failRollout, recordRollout, releaseFailure, requestedRollout, rolloutDrift, trackRollout } from './app-deployments.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { findDependency, REASON_WAITING_FOR_DEPENDENCY, requireReady } from './dependencies.js';
import { storedPassword } from './database-password.js';
import { databaseHomeOf } from './database-home.js';
import { doing, StallError, WaitError } from './errors.js';
import { SealedEnvError, sealedEnvOf } from '../migrations/sealed-env.js';
import { migrationSourceRefusal } from '../security/host-access.js';
import { observeManagedDrift, reconcileManaged, type ManagedAdapter, type Progress } from './managed.js';
import { placementOf } from './placement.js';
import { failAction, settleStateAction } from './state-actions.js';
import type { StatusDraft } from './status-draft.js';

const PASSWORD_RETRY_MS = 2_000;
export const REASON_SEALED_ENV_MISSING = 'SealedEnvMissing';
export const REASON_SOURCE_REFUSED = 'SourceRefused';

/** The App's sealed environment (a migration's config vars), or a stall saying why it cannot be read. */
function appSealedEnv(ctx: ReconcileContext, r: StoredResource<'App'>): Record<string, string> {
  try {
    return sealedEnvOf(ctx.store.secrets, r);
  } catch (error) {
    if (error instanceof SealedEnvError) throw new StallError(REASON_SEALED_ENV_MISSING, error.message);
    throw error;
  }
}

/** `shop-db` → `SHOP_DB_URL`. */
export function databaseUrlVariable(databaseName: string): string {
  return `${databaseName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`;
}

/** The URL of a Ready database, with the password cairn keeps for it. */
async function databaseUrl(ctx: ReconcileContext, app: StoredResource<'App'>, name: string): Promise<string> {
  const db = requireReady(ctx, app, 'Database', name);
  const home = await databaseHomeOf(ctx, db, db.spec, 'converge');
  const endpoint = await doing(`read the endpoint of Database/${name}`, () => home.databases.endpoint(db.status.externalId ?? ''));
  const password = storedPassword(ctx, db);
  if (password === undefined) {
    throw new WaitError(REASON_WAITING_FOR_DEPENDENCY, `waiting for Database/${name} to get a password from cairn`, PASSWORD_RETRY_MS);
  }
  return connectionString(db.spec.type, endpoint, password);
}

/** The runtime the app is deployed on now (or, while it is deleted, the one it was applied to). */
async function appRuntime(ctx: ReconcileContext, r: StoredResource<'App'>): Promise<AppRuntime> {
  const server = findDependency(ctx, r, 'Server', r.spec.server);
  const provider = findDependency(ctx, server, 'Provider', server.spec.provider);
  return (await ctx.drivers.runtimeFor(provider)).apps;
}

const appAdapter: ManagedAdapter<'App', AppDesired, AppObserved> = {
  kind: 'App',
  creatingPhase: 'deploying',
  deletingPhase: 'deleting',

  async connect(ctx, r, spec, purpose) {
    const placed = await placementOf(ctx, r, spec.server, purpose);
    return { client: placed.runtime.apps, vendor: placed.vendor };
  },

  async desired(ctx, r) {
    const placed = await placementOf(ctx, r, r.spec.server, 'converge');
    const env: Record<string, string> = { ...appSealedEnv(ctx, r), ...(r.spec.env ?? {}) };
    const path = r.spec.source.path;
    const foreign = path === undefined ? undefined : migrationSourceRefusal(ctx.store.dataDir, r.tenant, path);
    if (foreign !== undefined) throw new StallError(REASON_SOURCE_REFUSED, `App/${r.name}: ${foreign}`);
    for (const [index, name] of (r.spec.databases ?? []).entries()) {
      const url = await databaseUrl(ctx, r, name);
      if (index === 0) env.DATABASE_URL = url;
      env[databaseUrlVariable(name)] = url;
    }
    const git = r.spec.source.git;
    return {
      name: r.name,
      placement: placed.placement,
      source: git ? { git: { url: git.url, ref: git.ref ?? 'main', path: git.path ?? '.' } } : r.spec.source.image ? { image: r.spec.source.image } : { path: r.spec.source.path ?? '.' },
      build: r.spec.build ?? null,
      command: r.spec.command ?? null,
      port: r.spec.port ?? null,
      env,
      healthCheckPath: r.spec.healthCheck?.path ?? null,
      state: r.spec.state ?? 'running',
    };
  },

  drift(ctx, r, desired, observed) {
    const rollout = rolloutDrift(ctx, r, desired, observed);
    if (rollout.length > 0) return rollout;
    if ((desired.state === 'stopped') !== (observed.status === 'stopped') && observed.status !== 'deploying' && observed.status !== 'stopping') {
      return [`state: ${observed.status} → ${desired.state}`];
    }
    return [];
  },

  requested(ctx, r, desired, observed) {
    return requestedRollout(ctx, r, desired, observed);
  },

  beforeApply(ctx, r, desired, draft) {
    beginRollout(ctx, r, draft);
    return desired;
  },

  applyFailed(ctx, r, draft, error) {
    failRollout(ctx, r, draft, error);
  },

  recordApplied(ctx, _r, draft, desired, observed) {
    recordRollout(ctx, draft, desired, observed);
  },

  async track(ctx, r, observed) {
    await trackRollout(ctx, r, observed, () => appRuntime(ctx, r));
  },

  progress(_r, observed): Progress {
    switch (observed.status) {
      case 'running':
      case 'stopped': {
        const serving = observed.servingRelease;
        if (serving === undefined || serving === null) return { phase: observed.status, settled: true };
        const verb = observed.status === 'running' ? 'running' : 'stopped at';
        return { phase: observed.status, settled: true, message: `${verb} release ${serving}; release ${observed.release} failed` };
      }
      case 'failed':
        return { phase: 'failed', settled: true, failed: releaseFailure(observed) };
      default:
        return { phase: observed.status, settled: false };
    }
  },

  endpoints(observed) {
    return { url: observed.url };
  },

  details(observed) {
    return { release: observed.release, servingRelease: observed.servingRelease ?? null, commit: observed.commit };
  },

  afterSync(ctx, r, observed) {
    // start/stop came with a change of spec.state, which the app has now settled in.
    for (const action of ctx.store.actions.open(r.uid)) {
      if (action.type === 'start' || action.type === 'stop') settleStateAction(ctx, r, action, r.spec.state ?? 'running', observed);
      else failAction(ctx, r, action, `${action.type} is not an action apps take`);
    }
    return Promise.resolve(null);
  },

  onRemoved(ctx, r) {
    ctx.store.transaction(() => {
      ctx.store.deployments.failUnfinished(r.uid, `App/${r.name} was deleted`);
      ctx.store.actions.failOpen(r.uid, `App/${r.name} was deleted`);
      ctx.store.appWebhookSecrets.remove(r.tenant, r.uid);
    });
  },
};

/** What changed at the vendor behind cairn's back, without changing anything. */
export function observeAppDrift(ctx: ReconcileContext, r: StoredResource<'App'>): Promise<string[]> {
  return observeManagedDrift(ctx, r, appAdapter);
}

export function reconcileApp(ctx: ReconcileContext, r: StoredResource<'App'>, draft: StatusDraft): Promise<ReconcileResult> {
  return reconcileManaged(ctx, r, draft, appAdapter);
}
