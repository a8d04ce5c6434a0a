/**
 * @module Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection
 * does it: the holder renews `renewTime` every `renewMs`; another replica takes the Lease over
 * only once `leaseDurationSeconds` have passed without a renewal, writing at the resourceVersion
 * it read (a conflict means someone else won). Only the leader reconciles.
 */
import { V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { Cluster } from './cluster.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds: number;
  renewMs: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  onError: (error: unknown) => void;
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown; statusCode?: unknown } | undefined);
  const value = code?.code ?? code?.statusCode;
  return typeof value === 'number' ? value : undefined;
}

export class LeaderElection {
  private timer: NodeJS.Timeout | undefined;
  private leading = false;
  private lastRenewAt = 0;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(private readonly cluster: Cluster, private readonly options: LeaderElectionOptions) {}

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    const loop = (): void => {
      this.running = this.tryAcquireOrRenew().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(loop, this.options.renewMs);
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.leading) {
      this.leading = false;
      this.options.onStoppedLeading();
    }
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.options.onStartedLeading();
    else this.options.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<void> {
    const { namespace, name, identity, leaseDurationSeconds } = this.options;
    const api = this.cluster.coordination;
    const now = new V1MicroTime();
    try {
      let lease: V1Lease | undefined;
      try {
        lease = await api.readNamespacedLease({ name, namespace });
      } catch (error) {
        if (statusCode(error) !== 404) throw error;
      }
      if (!lease) {
        await api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 } } });
        this.lastRenewAt = now.getTime();
        this.setLeading(true);
        return;
      }
      const spec = lease.spec ?? {};
      const renewed = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
      const expired = renewed + (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000 < now.getTime();
      const mine = spec.holderIdentity === identity;
      if (!mine && !expired) {
        this.setLeading(false);
        return;
      }
      const nextSpec = mine
        ? { ...spec, renewTime: now, leaseDurationSeconds }
        : { ...spec, holderIdentity: identity, acquireTime: now, renewTime: now, leaseDurationSeconds, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
      await api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: nextSpec } });
      this.lastRenewAt = now.getTime();
      this.setLeading(true);
    } catch (error) {
      // A conflict means another replica wrote first. Other errors: a leader keeps leading while
      // its last renewal is younger than two thirds of the lease (client-go's renew deadline).
      if (statusCode(error) !== 409) this.options.onError(error);
      const withinDeadline = this.leading && now.getTime() - this.lastRenewAt < (leaseDurationSeconds * 1000 * 2) / 3;
      if (!withinDeadline) this.setLeading(false);
    }
  }
}
