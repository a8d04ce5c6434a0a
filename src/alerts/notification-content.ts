/**
 * @module What a notification says, in each form: the e-mail's subject and text, the json
 * webhook's body `{event, alert, rule}`, Slack's `{text, blocks}` and Discord's `{content,
 * embeds}` (their incoming-webhook formats); the json body's signature is src/net/webhook-post.ts's
 * (`X-Cairn-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`). Pure.
 */
import type { StoredAlert, AlertEvent } from '../store/alerts.js';
import { alertRecord, type AlertRecord } from './alert-record.js';

/** The rule as a notification shows it. */
export interface RuleSummary {
  id: string;
  name: string;
  namespace: string;
  metric: string;
  threshold: number;
  for_seconds: number;
}

export function ruleSummaryOf(alert: StoredAlert): RuleSummary {
  return { id: alert.ruleUid, name: alert.ruleName, namespace: alert.namespace, metric: alert.metric, threshold: alert.threshold, for_seconds: alert.forSeconds };
}

/** One line: `[FIRING] high-cpu: web cpu_percent 95 > 90 since 2026-…`. */
export function headline(event: AlertEvent, alert: StoredAlert): string {
  if (event === 'firing') {
    return `[FIRING] ${alert.ruleName}: ${alert.serverName} ${alert.metric} ${alert.value} > ${alert.threshold} since ${alert.startedAt}`;
  }
  return `[RESOLVED] ${alert.ruleName}: ${alert.serverName} ${alert.metric} back to ${alert.resolvedValue ?? '?'} (threshold ${alert.threshold}; firing from ${alert.startedAt} to ${alert.resolvedAt ?? '?'})`;
}

function detailLines(event: AlertEvent, alert: StoredAlert): string[] {
  return [
    `Rule: ${alert.ruleName} (namespace ${alert.namespace}, id ${alert.ruleUid})`,
    `Server: ${alert.serverName} (id ${alert.serverUid})`,
    `Metric: ${alert.metric}, threshold ${alert.threshold} (fires when strictly above for ${alert.forSeconds} s)`,
    `Value when it fired: ${alert.value}`,
    `Firing since: ${alert.startedAt}`,
    ...(event === 'resolved' ? [`Resolved at: ${alert.resolvedAt ?? '?'}, value ${alert.resolvedValue ?? '?'}`] : []),
    `Alert id: ${alert.id}`,
  ];
}

export function emailContent(event: AlertEvent, alert: StoredAlert): { subject: string; text: string } {
  return { subject: headline(event, alert), text: `${detailLines(event, alert).join('\n')}\n\n-- cairn\n` };
}

export interface JsonWebhookBody {
  event: 'alert.firing' | 'alert.resolved';
  alert: AlertRecord;
  rule: RuleSummary;
}

export function jsonWebhookBody(event: AlertEvent, alert: StoredAlert): JsonWebhookBody {
  return { event: event === 'firing' ? 'alert.firing' : 'alert.resolved', alert: alertRecord(alert), rule: ruleSummaryOf(alert) };
}

export function slackBody(event: AlertEvent, alert: StoredAlert): { text: string; blocks: object[] } {
  const text = headline(event, alert);
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${event === 'firing' ? ':rotating_light: Firing' : ':white_check_mark: Resolved'}*: ${alert.ruleName} on ${alert.serverName}` } },
      { type: 'section', text: { type: 'mrkdwn', text: detailLines(event, alert).join('\n') } },
    ],
  };
}

export function discordBody(event: AlertEvent, alert: StoredAlert): { content: string; embeds: object[] } {
  return {
    content: headline(event, alert),
    embeds: [{
      title: `${event === 'firing' ? 'Firing' : 'Resolved'}: ${alert.ruleName} on ${alert.serverName}`,
      description: detailLines(event, alert).join('\n'),
      color: event === 'firing' ? 0xd93f0b : 0x2da44e,
      timestamp: event === 'firing' ? alert.startedAt : (alert.resolvedAt ?? alert.startedAt),
    }],
  };
}

export { signatureOf } from '../net/webhook-post.js';
