/**
 * @module Servers: created at their Provider's cloud driver, resized in place, replaced when
 * provider/region/image/userData/sshKeys change, powered on or off to match `spec.state`; then
 * their actions (reboot, start, stop) are carried out. A server is created with the public keys
 * of its SSHKeys (it waits until they are ready) and cairn's own runtime key of the tenant (both
 * keys during a rotation) in its first-boot user data.
 */
import type { CloudDriver, ServerDesired, ServerObserved } from '../drivers/contract.js';
import { effectiveDeletionPolicy, selfHeals, type StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { findDependency, requireReady } from './dependencies.js';
import { doing } from './errors.js';
import { recordedKeyFacts } from './reconcile-ssh-key.js';
import { RuntimeKeys } from '../ssh-keys/runtime-key.js';
import { sshServerId } from '../drivers/ssh/server-target.js';
import { composeUserData } from '../drivers/kit/user-data.js';
import { VendorRejectedError } from '../drivers/errors.js';
import { observeManagedDrift, reconcileManaged, REASON_DRIFT, type ManagedAdapter, type Progress, type StepResult } from './managed.js';
import { serverActionStep } from './server-actions.js';
import type { StatusDraft } from './status-draft.js';
import { DEFAULT_SSH_PORT, DEFAULT_SSH_USER, serverFieldIssues, SSH_VENDOR } from '../model/server-vendor-fields.js';

export const DEFAULT_SERVER_IMAGE = 'debian-12';
export const REASON_POWER = 'PowerChanged';

/** The user data the vendor gets; a #cloud-config that cloud-init could not read stalls the server before anything is created. */
function composeServerUserData(userData: string | undefined, sshPublicKeys: readonly string[]): string | null {
  try {
    return composeUserData(userData, sshPublicKeys);
  } catch (error) {
    throw new VendorRejectedError((error as Error).message, { field: 'userData' });
  }
}

const serverAdapter: ManagedAdapter<'Server', ServerDesired, ServerObserved> = {
  kind: 'Server',
  creatingPhase: 'provisioning',
  deletingPhase: 'deleting',

  async connect(ctx, r, spec, purpose) {
    const provider = purpose === 'converge' ? requireReady(ctx, r, 'Provider', spec.provider) : findDependency(ctx, r, 'Provider', spec.provider);
    const driver = await ctx.drivers.cloudFor(provider);
    return { client: driver.servers, vendor: serverVendorLabel(provider) };
  },

  desired(ctx, r) {
    const provider = findDependency(ctx, r, 'Provider', r.spec.provider);
    // The schema cannot see the provider's vendor; what it takes is checked here (a stall naming the field).
    const [issue] = serverFieldIssues(provider.spec.vendor, provider.name, r.spec);
    if (issue) throw new VendorRejectedError(`spec.${issue.field}: ${issue.message}`, { field: issue.field });
    const image = r.spec.image ?? DEFAULT_SERVER_IMAGE;
    if (provider.spec.vendor === SSH_VENDOR) {
      const ssh = { host: r.spec.host ?? '', port: r.spec.port ?? DEFAULT_SSH_PORT, user: r.spec.user ?? DEFAULT_SSH_USER };
      return Promise.resolve({ name: r.name, region: '', size: '', image, ssh });
    }
    // Keys are read at the first boot only: looked up while the server is still to be created.
    const userData = composeServerUserData(r.spec.userData, r.status.externalId ? [] : serverPublicKeys(ctx, r));
    return Promise.resolve({ name: r.name, region: r.spec.region ?? '', size: r.spec.size ?? '', image, ...(userData === null ? {} : { userData }) });
  },

  drift(_ctx, _r, desired, observed) {
    return observed.size === desired.size ? [] : [`size: ${observed.size} → ${desired.size}`];
  },

  importConflicts(_ctx, _r, desired, observed) {
    const conflicts: string[] = [];
    if (desired.ssh && observed.id !== sshServerId(desired.ssh)) conflicts.push(`spec names host ${sshServerId(desired.ssh)} but the server imported is ${observed.id}`);
    if (observed.region !== desired.region) conflicts.push(`spec.region is ${JSON.stringify(desired.region)} but server ${observed.id} is in ${JSON.stringify(observed.region)}`);
    if (observed.image !== desired.image) conflicts.push(`spec.image is ${JSON.stringify(desired.image)} but server ${observed.id} runs ${JSON.stringify(observed.image)}`);
    return conflicts;
  },

  orphanOnDelete(r) {
    return effectiveDeletionPolicy(r) === 'Orphan';
  },

  progress(_r, observed): Progress {
    switch (observed.status) {
      case 'running':
      case 'stopped':
        return { phase: observed.status, settled: true };
      case 'error':
        return { phase: 'error', settled: true, failed: `the vendor reports server ${observed.id} in error${observed.message ? `: ${observed.message}` : ''}` };
      default:
        return { phase: observed.status, settled: false };
    }
  },

  endpoints(observed) {
    return { ipv4: observed.ipv4, ipv6: observed.ipv6 };
  },

  details(observed) {
    return { power: observed.status === 'running' ? 'on' : observed.status === 'stopped' ? 'off' : observed.status };
  },

  async afterSync(ctx: ReconcileContext, r: StoredResource<'Server'>, observed: ServerObserved, draft: StatusDraft): Promise<StepResult | null> {
    const driver = (): Promise<CloudDriver> => ctx.drivers.cloudFor(findDependency(ctx, r, 'Provider', r.spec.provider));
    const wanted = r.spec.state ?? 'running';
    let current = observed;
    // Settled at this generation in the wanted power state, and now in the other: changed outside cairn.
    const drifted = r.status.phase === wanted ? powerDrift(r, observed) : [];
    if (drifted.length > 0) {
      const change = drifted.join('; ');
      if (!selfHeals(r)) {
        const message = `changed outside cairn: ${change} (self-heal is off)`;
        draft.setPhase(observed.status);
        return { message: `server is ${observed.status}`, usable: true, requeueAfterMs: ctx.resyncMs('Server'), driftReported: message };
      }
      ctx.record(r, 'Warning', REASON_DRIFT, `changed outside cairn: ${change}; putting it back`);
    }
    if (observed.status !== wanted) {
      const action = wanted === 'stopped' ? 'power_off' : 'power_on';
      const cloud = await driver();
      current = await doing(action.replace('_', ' '), () => cloud.power(observed.id, action));
      draft.setPhase(current.status === wanted ? wanted : wanted === 'stopped' ? 'stopping' : 'starting');
      const message = `${action === 'power_off' ? 'stopping' : 'starting'} server ${observed.id} (spec.state: ${wanted})`;
      ctx.record(r, 'Normal', REASON_POWER, message);
      if (current.status !== wanted) return { message };
    }
    return serverActionStep(ctx, r, current, draft, driver);
  },

  observedDrift(r, observed) {
    return powerDrift(r, observed);
  },

  onRemoved(ctx, r) {
    ctx.store.actions.failOpen(r.uid, `Server/${r.name} was deleted`);
  },
};

/**
 * The public keys a new server accepts: its SSHKeys' (each must be ready; a wait says which is
 * not) and cairn's own runtime key of the tenant (the previous one too while a rotation is in
 * progress, so that either works).
 */
function serverPublicKeys(ctx: ReconcileContext, r: StoredResource<'Server'>): string[] {
  const keys = (r.spec.sshKeys ?? []).map((name) => {
    const key = requireReady(ctx, r, 'SSHKey', name);
    const facts = recordedKeyFacts(key);
    if (!facts) throw new Error(`SSHKey/${name} is ready but its status has no public key`);
    return facts.publicKey;
  });
  return [...keys, ...new RuntimeKeys(ctx.store).authorizedPublicKeys(r.tenant)];
}

/**
 * The vendor as server events name it (`created/deleting/deleted server X at <this>`); for the ssh
 * vendor it says what deleting means there: the host is forgotten, never touched.
 */
export function serverVendorLabel(provider: Pick<StoredResource<'Provider'>, 'name' | 'spec'>): string {
  if (provider.spec.vendor === SSH_VENDOR) return `ssh (Provider/${provider.name}: an existing host, which deleting only forgets; the host itself is yours)`;
  return `${provider.spec.vendor} (Provider/${provider.name})`;
}

/** A settled server whose power is not what its converged spec wants, as `power: before → after`. */
function powerDrift(r: StoredResource<'Server'>, observed: ServerObserved): string[] {
  const wanted = r.spec.state ?? 'running';
  const settled = observed.status === 'running' || observed.status === 'stopped';
  if (!settled || observed.status === wanted || r.status.observedGeneration !== r.generation) return [];
  return [`power: ${observed.status === 'stopped' ? 'off' : 'on'} → ${wanted === 'stopped' ? 'off' : 'on'}`];
}

/** What changed at the vendor behind cairn's back, without changing anything. */
export function observeServerDrift(ctx: ReconcileContext, r: StoredResource<'Server'>): Promise<string[]> {
  return observeManagedDrift(ctx, r, serverAdapter);
}

export function reconcileServer(ctx: ReconcileContext, r: StoredResource<'Server'>, draft: StatusDraft): Promise<ReconcileResult> {
  return reconcileManaged(ctx, r, draft, serverAdapter);
}
