/** @module Tests of the alert rule codec: an email channel where cairn has no SMTP settings is a 422 on that channel naming the settings; a webhook-only rule needs none. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import type { AlertRuleSpec } from '../../model/generated/kinds.js';
import { checkEmailChannels } from './alert-rule-record.js';

describe('checkEmailChannels', () => {
  const webhook = { type: 'webhook' as const, url: 'https://hooks.example.com/x' };
  const spec: AlertRuleSpec = {
    metric: 'cpu_percent', threshold: 90, selector: { labels: { tier: 'web' } },
    channels: [webhook, { type: 'email', to: 'ops@example.com' }],
  };

  it('refuses an email channel without CAIRN_SMTP_URL and CAIRN_MAIL_FROM, on that channel, naming both', () => {
    let caught: unknown;
    try {
      checkEmailChannels(spec, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    const issue = (caught as ValidationError).issues[0]!;
    expect(issue.pointer).toBe('/channels/1');
    expect(issue.message).toMatch(/CAIRN_SMTP_URL and CAIRN_MAIL_FROM/);
  });

  it('takes it when both are set, and a rule with only webhooks without them', () => {
    expect(() => checkEmailChannels(spec, { CAIRN_SMTP_URL: 'smtp://127.0.0.1:2525', CAIRN_MAIL_FROM: 'cairn@example.com' })).not.toThrow();
    expect(() => checkEmailChannels({ ...spec, channels: [webhook] }, {})).not.toThrow();
  });
});
