/** @module Tests of what notifications say: the json body and its HMAC signature, Slack's and Discord's incoming-webhook shapes, and the e-mail naming rule, server, metric, value, threshold and since when. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredAlert } from '../store/alerts.js';
import { webhookBody } from './channel-senders.js';
import { emailContent, jsonWebhookBody, signatureOf } from './notification-content.js';

const firing: StoredAlert = {
  id: 'a1', tenant: 't', namespace: 'default', ruleUid: 'r1', ruleName: 'high-cpu', serverUid: 's1', serverName: 'web',
  metric: 'cpu_percent', threshold: 90, forSeconds: 30, value: 95, state: 'firing', startedAt: '2026-01-01T00:00:00.000Z',
  resolvedAt: null, resolvedValue: null,
};
const resolved: StoredAlert = { ...firing, state: 'resolved', resolvedAt: '2026-01-01T00:05:00.000Z', resolvedValue: 10 };

describe('notification content', () => {
  it('the json body is {event, alert, rule} with the REST alert record', () => {
    expect(jsonWebhookBody('firing', firing)).toEqual({
      event: 'alert.firing',
      alert: { id: 'a1', rule_id: 'r1', rule_name: 'high-cpu', server_id: 's1', server_name: 'web', metric: 'cpu_percent', threshold: 90, value: 95, state: 'firing', started_at: '2026-01-01T00:00:00.000Z', resolved_at: null, resolved_value: null },
      rule: { id: 'r1', name: 'high-cpu', namespace: 'default', metric: 'cpu_percent', threshold: 90, for_seconds: 30 },
    });
    expect(jsonWebhookBody('resolved', resolved).event).toBe('alert.resolved');
  });

  it('signs the raw body with HMAC-SHA256 in hex, as a receiver recomputes it', () => {
    const body = webhookBody('json', 'firing', firing);
    const expected = createHmac('sha256', 'the-secret').update(body).digest('hex');
    expect(signatureOf(body, 'the-secret')).toBe(`sha256=${expected}`);
    expect(signatureOf(body, 'another')).not.toBe(`sha256=${expected}`);
  });

  it('Slack gets {text, blocks} and Discord {content, embeds}', () => {
    const slack = JSON.parse(webhookBody('slack', 'firing', firing)) as { text: string; blocks: unknown[] };
    expect(slack.text).toBe('[FIRING] high-cpu: web cpu_percent 95 > 90 since 2026-01-01T00:00:00.000Z');
    expect(slack.blocks.length).toBeGreaterThan(0);
    const discord = JSON.parse(webhookBody('discord', 'resolved', resolved)) as { content: string; embeds: Array<{ title: string }> };
    expect(discord.content).toMatch(/^\[RESOLVED\] high-cpu: web cpu_percent back to 10/);
    expect(discord.embeds[0]?.title).toBe('Resolved: high-cpu on web');
  });

  it('the e-mail names rule, server, metric, value, threshold and since when', () => {
    const { subject, text } = emailContent('firing', firing);
    expect(subject).toContain('high-cpu');
    for (const part of ['Rule: high-cpu', 'Server: web', 'cpu_percent, threshold 90', 'Value when it fired: 95', 'Firing since: 2026-01-01T00:00:00.000Z']) expect(text).toContain(part);
    expect(emailContent('resolved', resolved).text).toContain('Resolved at: 2026-01-01T00:05:00.000Z, value 10');
  });
});
