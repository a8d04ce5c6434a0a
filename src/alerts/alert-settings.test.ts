/** @module Tests of the alert settings: the interval's default and bounds, and the mail settings' pairing and shape, each error naming its setting. */
import { describe, expect, it } from 'vitest';
import { alertIntervalSeconds, mailConfigured, mailSettings } from './alert-settings.js';

describe('alert settings', () => {
  it('evaluates every 15 s unless CAIRN_ALERT_INTERVAL_SECONDS says otherwise, within bounds', () => {
    expect(alertIntervalSeconds({})).toBe(15);
    expect(alertIntervalSeconds({ CAIRN_ALERT_INTERVAL_SECONDS: '1' })).toBe(1);
    expect(() => alertIntervalSeconds({ CAIRN_ALERT_INTERVAL_SECONDS: 'soon' })).toThrow(/CAIRN_ALERT_INTERVAL_SECONDS must be a number/);
    expect(() => alertIntervalSeconds({ CAIRN_ALERT_INTERVAL_SECONDS: '0' })).toThrow(/0\.1 to 86400/);
  });

  it('reads the SMTP URL and sender together, refusing one without the other or a URL of another scheme', () => {
    expect(mailSettings({})).toBeUndefined();
    const settings = mailSettings({ CAIRN_SMTP_URL: 'smtps://u:p@mail.example.com:465', CAIRN_MAIL_FROM: 'cairn@example.com' });
    expect(settings?.smtpUrl.hostname).toBe('mail.example.com');
    expect(() => mailSettings({ CAIRN_SMTP_URL: 'smtp://h:25' })).toThrow(/CAIRN_MAIL_FROM is not/);
    expect(() => mailSettings({ CAIRN_MAIL_FROM: 'a@b.c' })).toThrow(/CAIRN_SMTP_URL is not/);
    expect(() => mailSettings({ CAIRN_SMTP_URL: 'http://h', CAIRN_MAIL_FROM: 'a@b.c' })).toThrow(/must start with smtp:\/\/ or smtps:\/\//);
    expect(() => mailSettings({ CAIRN_SMTP_URL: 'smtp://h', CAIRN_MAIL_FROM: 'nobody' })).toThrow(/CAIRN_MAIL_FROM must be an e-mail address/);
    expect(mailConfigured({ CAIRN_SMTP_URL: 'smtp://h', CAIRN_MAIL_FROM: 'Cairn <cairn@example.com>' })).toBe(true);
    expect(mailConfigured({ CAIRN_SMTP_URL: 'smtp://h' })).toBe(false);
  });
});
