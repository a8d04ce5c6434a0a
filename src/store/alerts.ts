/**
 * @module Alerts as stored (migration 14): the per (rule, server) condition the evaluator keeps,
 * the alerts it fires and resolves, and the outbox of their notifications. Firing or resolving
 * an alert writes its deliveries in the same transaction (the caller's, with its event), so
 * what was decided is either all there or not at all; the delivery loop sends what is due and
 * marks it after, retrying with backoff until delivered or out of attempts.
 */
import { randomUUID } from 'node:crypto';
import type { SqlConnection } from './connection.js';
import { newestFirstPage } from './newest-first-page.js';
import type { Page, PageRequest } from './paging.js';
import { OutboxTable, shortError, type DeliveryStatus, type OutboxDelivery } from './outbox-table.js';
import { StatementCache } from './sqlite.js';

export type AlertState = 'firing' | 'resolved';
export type AlertEvent = 'firing' | 'resolved';
export type { DeliveryStatus } from './outbox-table.js';

/** Per (rule, server): since when the metric has been above the threshold, and evaluations in a row back at or below it while firing. */
export interface AlertCondition {
  aboveSince: string | null;
  belowCount: number;
}

export interface StoredAlert {
  id: string;
  tenant: string;
  namespace: string;
  ruleUid: string;
  ruleName: string;
  serverUid: string;
  serverName: string;
  metric: string;
  threshold: number;
  forSeconds: number;
  /** The metric's value when it fired. */
  value: number;
  state: AlertState;
  startedAt: string;
  resolvedAt: string | null;
  /** The metric's value when it resolved. */
  resolvedValue: number | null;
}

export interface StoredDelivery extends OutboxDelivery {
  alertId: string;
  channelIndex: number;
  /** The channel as the rule had it when the alert fired or resolved. */
  channel: Record<string, unknown>;
  event: AlertEvent;
}

/** An alert as it fires: what it will be stored as, less what the store decides, with the time and the rule's channels. */
export type NewAlert = Omit<StoredAlert, 'id' | 'state' | 'startedAt' | 'resolvedAt' | 'resolvedValue'> & {
  at: string;
  channels: readonly object[];
};

interface AlertRow {
  id: string; tenant: string; namespace: string; rule_uid: string; rule_name: string; server_uid: string; server_name: string;
  metric: string; threshold: number; for_seconds: number; value: number; state: AlertState; started_at: string;
  resolved_at: string | null; resolved_value: number | null;
}

interface DeliveryRow {
  id: string; alert_id: string; tenant: string; channel_index: number; channel: string; event: AlertEvent; status: DeliveryStatus;
  attempts: number; last_error: string | null; next_attempt_at: string; delivered_at: string | null; created_at: string;
}

function toAlert(row: AlertRow): StoredAlert {
  return {
    id: row.id, tenant: row.tenant, namespace: row.namespace, ruleUid: row.rule_uid, ruleName: row.rule_name,
    serverUid: row.server_uid, serverName: row.server_name, metric: row.metric, threshold: row.threshold,
    forSeconds: row.for_seconds, value: row.value, state: row.state, startedAt: row.started_at,
    resolvedAt: row.resolved_at, resolvedValue: row.resolved_value,
  };
}

function toDelivery(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id, alertId: row.alert_id, tenant: row.tenant, channelIndex: row.channel_index,
    channel: JSON.parse(row.channel) as Record<string, unknown>, event: row.event, status: row.status,
    attempts: row.attempts, lastError: row.last_error, nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at, createdAt: row.created_at,
  };
}

export class Alerts {
  private readonly sql: StatementCache;
  private readonly outbox: OutboxTable<DeliveryRow>;

  constructor(db: SqlConnection) {
    this.sql = new StatementCache(db);
    this.outbox = new OutboxTable<DeliveryRow>(db, 'alert_deliveries');
  }

  /** Tenants that have AlertRules (the evaluator's round visits each). */
  ruleTenants(): string[] {
    return (this.sql.get(`SELECT DISTINCT tenant FROM resources WHERE kind = 'AlertRule' ORDER BY tenant`).all() as Array<{ tenant: string }>).map((r) => r.tenant);
  }

  condition(ruleUid: string, serverUid: string): AlertCondition {
    const row = this.sql.get(`SELECT above_since, below_count FROM alert_conditions WHERE rule_uid = ? AND server_uid = ?`).get(ruleUid, serverUid) as
      { above_since: string | null; below_count: number } | undefined;
    return { aboveSince: row?.above_since ?? null, belowCount: row?.below_count ?? 0 };
  }

  /** Keeps the condition; one with nothing to remember is not stored. */
  saveCondition(tenant: string, ruleUid: string, serverUid: string, condition: AlertCondition): void {
    if (condition.aboveSince === null && condition.belowCount === 0) {
      this.sql.get(`DELETE FROM alert_conditions WHERE rule_uid = ? AND server_uid = ?`).run(ruleUid, serverUid);
      return;
    }
    this.sql.get(
      `INSERT INTO alert_conditions (rule_uid, server_uid, tenant, above_since, below_count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (rule_uid, server_uid) DO UPDATE SET above_since = excluded.above_since, below_count = excluded.below_count`,
    ).run(ruleUid, serverUid, tenant, condition.aboveSince, condition.belowCount);
  }

  /** The alert firing for (rule, server), if one is. */
  firing(ruleUid: string, serverUid: string): StoredAlert | undefined {
    const row = this.sql.get(`SELECT * FROM alerts WHERE rule_uid = ? AND server_uid = ? AND state = 'firing'`).get(ruleUid, serverUid) as AlertRow | undefined;
    return row && toAlert(row);
  }

  /** Alerts firing now, by rule uid (for the `cairn_alerts_firing` gauge). */
  firingByRule(): Array<{ tenant: string; namespace: string; ruleName: string; count: number }> {
    return (this.sql.get(
      `SELECT tenant, namespace, rule_name, count(*) AS n FROM alerts WHERE state = 'firing' GROUP BY tenant, namespace, rule_uid, rule_name`,
    ).all() as Array<{ tenant: string; namespace: string; rule_name: string; n: number }>).map((r) => ({ tenant: r.tenant, namespace: r.namespace, ruleName: r.rule_name, count: r.n }));
  }

  /** Records a new firing alert with a pending delivery per channel. Call inside a transaction with its event. */
  fire(alert: NewAlert): StoredAlert {
    const id = randomUUID();
    this.sql.get(
      `INSERT INTO alerts (id, tenant, namespace, rule_uid, rule_name, server_uid, server_name, metric, threshold, for_seconds, value, state, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'firing', ?)`,
    ).run(id, alert.tenant, alert.namespace, alert.ruleUid, alert.ruleName, alert.serverUid, alert.serverName, alert.metric, alert.threshold, alert.forSeconds, alert.value, alert.at);
    this.addDeliveries(id, alert.tenant, alert.channels, 'firing', alert.at);
    return this.get(alert.tenant, id)!;
  }

  /** Resolves a firing alert with a pending delivery per channel. Call inside a transaction with its event. */
  resolve(alert: StoredAlert, value: number | null, at: string, channels: readonly object[]): StoredAlert {
    this.sql.get(`UPDATE alerts SET state = 'resolved', resolved_at = ?, resolved_value = ? WHERE id = ? AND state = 'firing'`).run(at, value, alert.id);
    this.addDeliveries(alert.id, alert.tenant, channels, 'resolved', at);
    return this.get(alert.tenant, alert.id)!;
  }

  /**
   * A rule deleted: its conditions are forgotten, its firing alerts resolved without notice, and
   * its deliveries not yet sent fail with `reason`. Returns the alerts it resolved.
   */
  forgetRule(ruleUid: string, at: string, reason: string): number {
    this.sql.get(`DELETE FROM alert_conditions WHERE rule_uid = ?`).run(ruleUid);
    this.sql.get(
      `UPDATE alert_deliveries SET status = 'failed', last_error = ? WHERE status = 'pending' AND alert_id IN (SELECT id FROM alerts WHERE rule_uid = ?)`,
    ).run(shortError(reason), ruleUid);
    return this.sql.get(`UPDATE alerts SET state = 'resolved', resolved_at = ? WHERE rule_uid = ? AND state = 'firing'`).run(at, ruleUid).changes;
  }

  /** A server gone: the conditions of every rule over it are forgotten (its firing alerts stay until the rule resolves them). */
  forgetServerConditions(ruleUid: string, keepServerUids: readonly string[]): void {
    const rows = this.sql.get(`SELECT server_uid FROM alert_conditions WHERE rule_uid = ?`).all(ruleUid) as Array<{ server_uid: string }>;
    for (const row of rows) {
      if (!keepServerUids.includes(row.server_uid)) this.sql.get(`DELETE FROM alert_conditions WHERE rule_uid = ? AND server_uid = ?`).run(ruleUid, row.server_uid);
    }
  }

  /** The alerts firing for a rule (its servers may have left the selector). */
  firingOfRule(ruleUid: string): StoredAlert[] {
    return (this.sql.get(`SELECT * FROM alerts WHERE rule_uid = ? AND state = 'firing'`).all(ruleUid) as AlertRow[]).map(toAlert);
  }

  get(tenant: string, id: string): StoredAlert | undefined {
    const row = this.sql.get(`SELECT * FROM alerts WHERE tenant = ? AND id = ?`).get(tenant, id) as AlertRow | undefined;
    return row && toAlert(row);
  }

  /** A tenant's alerts, newest first. */
  page(tenant: string, request: PageRequest): Page<StoredAlert> {
    return newestFirstPage<AlertRow, StoredAlert>(this.sql, { table: 'alerts', timeColumn: 'started_at' }, tenant, request, toAlert, (row) => row.started_at);
  }

  deliveriesOf(alertId: string): StoredDelivery[] {
    return (this.sql.get(`SELECT * FROM alert_deliveries WHERE alert_id = ? ORDER BY created_at, event, channel_index`).all(alertId) as DeliveryRow[]).map(toDelivery);
  }

  /** Pending deliveries whose next attempt is due at `now`, oldest first. */
  due(now: string, limit: number): StoredDelivery[] {
    return this.outbox.due(now, limit).map(toDelivery);
  }

  /** When the next pending delivery is due, if any is pending. */
  nextDueAt(): string | undefined {
    return this.outbox.nextDueAt();
  }

  alertOf(delivery: StoredDelivery): StoredAlert | undefined {
    return this.get(delivery.tenant, delivery.alertId);
  }

  /** Sent: counted as an attempt and marked delivered. */
  markDelivered(id: string, at: string): void {
    this.outbox.markDelivered(id, at);
  }

  /** An attempt failed: the error is kept; tried again at `retryAt`, or failed for good when it is null. */
  markAttemptFailed(id: string, error: string, retryAt: string | null): void {
    this.outbox.markAttemptFailed(id, error, retryAt);
  }

  private addDeliveries(alertId: string, tenant: string, channels: readonly object[], event: AlertEvent, at: string): void {
    channels.forEach((channel, index) => {
      this.sql.get(
        `INSERT INTO alert_deliveries (id, alert_id, tenant, channel_index, channel, event, status, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (alert_id, channel_index, event) DO NOTHING`,
      ).run(randomUUID(), alertId, tenant, index, JSON.stringify(channel), event, at, at);
    });
  }
}
