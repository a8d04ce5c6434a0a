/**
 * @module The alert settings (MANIFESTS.md): `CAIRN_ALERT_INTERVAL_SECONDS` (how often rules are
 * evaluated, default 15), `CAIRN_SMTP_URL` (`smtp://user:pass@host:port`, `smtps://` for TLS
 * from the first byte; STARTTLS is used on smtp:// when the server offers it) and
 * `CAIRN_MAIL_FROM` (the sender of alert e-mail). A bad value is an error naming the setting.
 */

export const ALERT_INTERVAL_SETTING = 'CAIRN_ALERT_INTERVAL_SECONDS';
export const SMTP_URL_SETTING = 'CAIRN_SMTP_URL';
export const MAIL_FROM_SETTING = 'CAIRN_MAIL_FROM';
export const DEFAULT_ALERT_INTERVAL_SECONDS = 15;

export class AlertSettingError extends Error {
  override readonly name = 'AlertSettingError';
}

/** Where alert e-mail goes out: the SMTP server's URL and the sender. */
export interface MailSettings {
  smtpUrl: URL;
  from: string;
}

/** Seconds between evaluations (0.1 to 86400). */
export function alertIntervalSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[ALERT_INTERVAL_SETTING];
  if (text === undefined || text.trim() === '') return DEFAULT_ALERT_INTERVAL_SECONDS;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0.1 || value > 86_400) {
    throw new AlertSettingError(`${ALERT_INTERVAL_SETTING} must be a number of seconds from 0.1 to 86400, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** The mail settings, or undefined when neither is set; one without the other, or a bad URL, is an error. */
export function mailSettings(env: NodeJS.ProcessEnv = process.env): MailSettings | undefined {
  const url = env[SMTP_URL_SETTING]?.trim() ?? '';
  const from = env[MAIL_FROM_SETTING]?.trim() ?? '';
  if (url === '' && from === '') return undefined;
  if (url === '') throw new AlertSettingError(`${MAIL_FROM_SETTING} is set but ${SMTP_URL_SETTING} is not: set both to send alert e-mail, or neither`);
  if (from === '') throw new AlertSettingError(`${SMTP_URL_SETTING} is set but ${MAIL_FROM_SETTING} is not: set both to send alert e-mail (${MAIL_FROM_SETTING} is the sender, e.g. cairn@example.com)`);
  let smtpUrl: URL;
  try {
    smtpUrl = new URL(url);
  } catch {
    throw new AlertSettingError(`${SMTP_URL_SETTING} is not a URL; write it as smtp://user:pass@host:port (smtps:// for TLS)`);
  }
  if (smtpUrl.protocol !== 'smtp:' && smtpUrl.protocol !== 'smtps:') {
    throw new AlertSettingError(`${SMTP_URL_SETTING} must start with smtp:// or smtps://, got ${smtpUrl.protocol}//`);
  }
  if (smtpUrl.hostname === '') throw new AlertSettingError(`${SMTP_URL_SETTING} names no host; write it as smtp://user:pass@host:port`);
  if (!/^[^@\s<>]+@[^@\s<>]+$/.test(from) && !/<[^@\s<>]+@[^@\s<>]+>$/.test(from)) {
    throw new AlertSettingError(`${MAIL_FROM_SETTING} must be an e-mail address (or "Name <address>"), got ${JSON.stringify(from)}`);
  }
  return { smtpUrl, from };
}

/** Whether alert e-mail can be sent: both settings present and valid. */
export function mailConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return mailSettings(env) !== undefined;
  } catch {
    return false;
  }
}
