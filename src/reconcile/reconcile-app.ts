/**
 * @module Apps: deployed on a Ready server through its provider's runtime, with the URLs of
 * their databases injected (DATABASE_URL for the first, <NAME>_URL for each). A new release is
 * deployed when the configuration changes (spec, or an injected credential), or when the vendor's
 * release no longer is the one cairn deployed.
 */
import { createHash } from 'node:crypto';
import type { AppDesired, AppObserved } from '../drivers/contract.js';
import { canonicalJson } from '../model/canonical-json.js';
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { requireReady } from './dependencies.js';
import { doing } from './errors.js';
import { reconcileManaged, type ManagedAdapter, type Progress } from './managed.js';
import { placementOf } from './placement.js';
import type { StatusDraft } from './status-draft.js';

/** `shop-db` → `SHOP_DB_URL`. */
export function databaseUrlVariable(databaseName: string): string {
  return `${databaseName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`;
}

function configDigest(desired: AppDesired): string {
  return createHash('sha256').update(canonicalJson(desired)).digest('hex');
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
    const env: Record<string, string> = { ...(r.spec.env ?? {}) };
    for (const [index, name] of (r.spec.databases ?? []).entries()) {
      const db = requireReady(ctx, r, 'Database', name);
      const dbPlaced = await placementOf(ctx, db, db.spec.server, 'converge');
      const connection = await doing(`read credentials of Database/${name}`, () => dbPlaced.runtime.databases.connection(db.status.externalId ?? ''));
      if (index === 0) env.DATABASE_URL = connection.uri;
      env[databaseUrlVariable(name)] = connection.uri;
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

  drift(_r, desired, observed, draft: StatusDraft) {
    const details = draft.status.details ?? {};
    const changes: string[] = [];
    if (details.configDigest !== configDigest(desired)) changes.push(`configuration changed: deploying release ${observed.release + 1}`);
    else if (details.releaseDigest !== observed.releaseDigest) changes.push(`release ${observed.release} at the vendor is not the one cairn deployed: deploying again`);
    else if ((desired.state === 'stopped') !== (observed.status === 'stopped') && observed.status !== 'deploying' && observed.status !== 'stopping') {
      changes.push(`state: ${observed.status} → ${desired.state}`);
    }
    return changes;
  },

  recordApplied(draft, desired, observed) {
    draft.status.details = { ...draft.status.details, configDigest: configDigest(desired), releaseDigest: observed.releaseDigest };
  },

  progress(_r, observed): Progress {
    switch (observed.status) {
      case 'running':
      case 'stopped':
        return { phase: observed.status, settled: true };
      case 'failed':
        return { phase: 'failed', settled: true, failed: `release ${observed.release} failed to start` };
      default:
        return { phase: observed.status, settled: false };
    }
  },

  endpoints(observed) {
    return { url: observed.url };
  },

  details(observed) {
    return { release: observed.release };
  },
};

export function reconcileApp(ctx: ReconcileContext, r: StoredResource<'App'>, draft: StatusDraft): Promise<ReconcileResult> {
  return reconcileManaged(ctx, r, draft, appAdapter);
}
