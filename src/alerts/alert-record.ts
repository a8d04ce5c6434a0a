/**
 * @module An alert and its deliveries as REST shows them (API.md "Alerts"), which the json
 * webhook carries too: snake_case, the rule and server by id, with their names beside.
 */
import type { StoredAlert, StoredDelivery } from '../store/alerts.js';

export interface AlertRecord {
  id: string;
  rule_id: string;
  rule_name: string;
  server_id: string;
  server_name: string;
  metric: string;
  threshold: number;
  /** The metric's value when the alert fired. */
  value: number;
  state: 'firing' | 'resolved';
  started_at: string;
  resolved_at: string | null;
  /** The metric's value when it resolved. */
  resolved_value: number | null;
}

export interface DeliveryRecord {
  id: string;
  channel: Record<string, unknown>;
  event: 'firing' | 'resolved';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  delivered_at: string | null;
  next_attempt_at: string | null;
}

export function alertRecord(a: StoredAlert): AlertRecord {
  return {
    id: a.id, rule_id: a.ruleUid, rule_name: a.ruleName, server_id: a.serverUid, server_name: a.serverName,
    metric: a.metric, threshold: a.threshold, value: a.value, state: a.state, started_at: a.startedAt,
    resolved_at: a.resolvedAt, resolved_value: a.resolvedValue,
  };
}

export function deliveryRecord(d: StoredDelivery): DeliveryRecord {
  return {
    id: d.id, channel: d.channel, event: d.event, status: d.status, attempts: d.attempts, last_error: d.lastError,
    delivered_at: d.deliveredAt, next_attempt_at: d.status === 'pending' ? d.nextAttemptAt : null,
  };
}
