/**
 * @module One evaluation round: for every tenant's AlertRules, the metric of each server it
 * selects (read once per server per round through the server's provider driver, as
 * `GET /servers/{id}/metrics` reads it), run through the condition's state machine
 * (alert-condition.ts). A transition and everything it implies — the alert row, its pending
 * deliveries (one per channel), the condition kept and the `AlertFiring`/`AlertResolved` event —
 * is written in one transaction. A firing alert whose server the rule no longer selects (the
 * server deleted, the selector changed) is resolved, its value unknown. A server whose metrics
 * cannot be read is skipped this round: nothing changes for it.
 */
import type { ServerMetrics } from '../drivers/contract.js';
import type { StoredResource } from '../model/resource.js';
import type { DriverPool } from '../reconcile/driver-pool.js';
import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/store.js';
import { evaluateCondition } from './alert-condition.js';
import { selectedServers } from './rule-servers.js';

export const REASON_ALERT_FIRING = 'AlertFiring';
export const REASON_ALERT_RESOLVED = 'AlertResolved';

export interface EvaluationHooks {
  onTransition?(event: 'firing' | 'resolved', alert: StoredAlert): void;
  onMetricsError?(server: StoredResource<'Server'>, error: unknown): void;
}

const METRIC_FIELDS = { cpu_percent: 'cpuPercent', memory_percent: 'memoryPercent', disk_percent: 'diskPercent' } as const;

export class AlertEvaluator {
  constructor(
    private readonly store: Store,
    private readonly drivers: Pick<DriverPool, 'cloudFor'>,
    private readonly hooks: EvaluationHooks = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Evaluates every rule once. */
  async evaluateAll(): Promise<void> {
    for (const tenant of this.store.alerts.ruleTenants()) await this.evaluateTenant(tenant);
  }

  private async evaluateTenant(tenant: string): Promise<void> {
    const rules = this.store.resources.list({ tenant, kind: 'AlertRule' })
      .filter((r): r is StoredResource<'AlertRule'> => r.kind === 'AlertRule' && r.deletionTimestamp === null);
    if (rules.length === 0) return;
    const servers = this.store.resources.list({ tenant, kind: 'Server' });
    const readings = new Map<string, Promise<ServerMetrics | undefined>>();
    for (const rule of rules) {
      const selected = selectedServers(rule, servers);
      for (const server of selected) {
        let reading = readings.get(server.uid);
        if (!reading) {
          reading = this.readMetrics(tenant, server);
          readings.set(server.uid, reading);
        }
        const metrics = await reading;
        if (metrics) this.step(rule, server, metrics[METRIC_FIELDS[rule.spec.metric]]);
      }
      this.resolveUnselected(rule, selected);
    }
  }

  private async readMetrics(tenant: string, server: StoredResource<'Server'>): Promise<ServerMetrics | undefined> {
    const provider = this.store.resources.find(tenant, { kind: 'Provider', namespace: server.namespace, name: server.spec.provider });
    try {
      if (!provider) throw new Error(`provider ${server.spec.provider} does not exist`);
      return await (await this.drivers.cloudFor(provider)).metrics(server.status.externalId!);
    } catch (error) {
      this.hooks.onMetricsError?.(server, error);
      return undefined;
    }
  }

  /** One evaluation of (rule, server), and its transition, in one transaction. */
  private step(rule: StoredResource<'AlertRule'>, server: StoredResource<'Server'>, value: number): void {
    const at = this.now();
    const done = this.store.transaction(() => {
      const firing = this.store.alerts.firing(rule.uid, server.uid);
      const next = evaluateCondition({
        remembered: this.store.alerts.condition(rule.uid, server.uid), firing: firing !== undefined,
        value, threshold: rule.spec.threshold, forSeconds: rule.spec.forSeconds ?? 60, now: at,
      });
      this.store.alerts.saveCondition(rule.tenant, rule.uid, server.uid, next.remember);
      if (next.transition === 'fire') {
        const alert = this.store.alerts.fire({
          tenant: rule.tenant, namespace: rule.namespace, ruleUid: rule.uid, ruleName: rule.name, serverUid: server.uid, serverName: server.name,
          metric: rule.spec.metric, threshold: rule.spec.threshold, forSeconds: rule.spec.forSeconds ?? 60, value, at: at.toISOString(),
          channels: rule.spec.channels ?? [],
        });
        this.recordEvent(rule, 'Warning', REASON_ALERT_FIRING, `${server.name}: ${rule.spec.metric} ${value} > ${rule.spec.threshold} for ${rule.spec.forSeconds ?? 60} s (alert ${alert.id})`);
        return { event: 'firing' as const, alert };
      }
      if (next.transition === 'resolve' && firing) {
        const alert = this.store.alerts.resolve(firing, value, at.toISOString(), rule.spec.channels ?? []);
        this.recordEvent(rule, 'Normal', REASON_ALERT_RESOLVED, `${server.name}: ${rule.spec.metric} back to ${value} (threshold ${rule.spec.threshold}; alert ${alert.id})`);
        return { event: 'resolved' as const, alert };
      }
      return undefined;
    });
    if (done) this.hooks.onTransition?.(done.event, done.alert);
  }

  private resolveUnselected(rule: StoredResource<'AlertRule'>, selected: ReadonlyArray<StoredResource<'Server'>>): void {
    const kept = selected.map((s) => s.uid);
    for (const firing of this.store.alerts.firingOfRule(rule.uid)) {
      if (kept.includes(firing.serverUid)) continue;
      const alert = this.store.transaction(() => {
        const resolved = this.store.alerts.resolve(firing, null, this.now().toISOString(), rule.spec.channels ?? []);
        this.recordEvent(rule, 'Normal', REASON_ALERT_RESOLVED, `${firing.serverName}: no longer watched by the rule (the server is gone or the selector changed); alert ${firing.id} resolved`);
        return resolved;
      });
      this.hooks.onTransition?.('resolved', alert);
    }
    this.store.alerts.forgetServerConditions(rule.uid, kept);
  }

  private recordEvent(rule: StoredResource<'AlertRule'>, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.store.events.append({ tenant: rule.tenant, uid: rule.uid, kind: 'AlertRule', namespace: rule.namespace, name: rule.name, type, reason, message });
  }
}
