/**
 * @module Sending one notification: e-mail through the SMTP server of CAIRN_SMTP_URL
 * (nodemailer), and webhooks through the outbound guard (src/net/guarded-fetch.ts: the URL is
 * tenant input). Every message carries its delivery's id (`X-Cairn-Delivery`, and the e-mail's
 * Message-ID) so a receiver can drop the copy a crash between sending and recording may cause.
 * A send that did not succeed throws, saying why.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { guardedFetch, outboundRefusal } from '../net/guarded-fetch.js';
import type { AlertEvent, StoredAlert } from '../store/alerts.js';
import type { MailSettings } from './alert-settings.js';
import { discordBody, emailContent, jsonWebhookBody, signatureOf, slackBody } from './notification-content.js';

export const DELIVERY_HEADER = 'X-Cairn-Delivery';
export const SIGNATURE_HEADER = 'X-Cairn-Signature-256';
const WEBHOOK_TIMEOUT_MS = 10_000;

export type WebhookFormat = 'slack' | 'discord' | 'json';

/** Sends alert e-mail through one SMTP server. */
export class EmailSender {
  private readonly transport: Transporter;

  constructor(private readonly settings: MailSettings) {
    this.transport = nodemailer.createTransport(settings.smtpUrl.toString());
  }

  async send(deliveryId: string, to: string, event: AlertEvent, alert: StoredAlert): Promise<void> {
    const { subject, text } = emailContent(event, alert);
    await this.transport.sendMail({
      from: this.settings.from,
      to,
      subject,
      text,
      messageId: `<${deliveryId}@cairn.alerts>`,
      headers: { [DELIVERY_HEADER]: deliveryId },
    });
  }

  close(): void {
    this.transport.close();
  }
}

/** The body a webhook of `format` gets, as the exact bytes sent (the json one is signed over them). */
export function webhookBody(format: WebhookFormat, event: AlertEvent, alert: StoredAlert): string {
  switch (format) {
    case 'slack':
      return JSON.stringify(slackBody(event, alert));
    case 'discord':
      return JSON.stringify(discordBody(event, alert));
    case 'json':
      return JSON.stringify(jsonWebhookBody(event, alert));
  }
}

/** POSTs the notification; a json webhook is signed with `secret`. Anything but a 2xx answer throws. */
export async function sendWebhook(
  target: { url: string; format: WebhookFormat; secret?: string | undefined },
  deliveryId: string,
  event: AlertEvent,
  alert: StoredAlert,
): Promise<void> {
  const body = webhookBody(target.format, event, alert);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'cairn-alerts', [DELIVERY_HEADER]: deliveryId };
  if (target.format === 'json') {
    if (target.secret === undefined) throw new Error('the rule has no webhook secret to sign with');
    headers[SIGNATURE_HEADER] = signatureOf(body, target.secret);
  }
  let answer: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    answer = await guardedFetch(target.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) });
  } catch (error) {
    const refused = outboundRefusal(error);
    if (refused) throw new Error(`refused by cairn's outbound guard: ${refused.message}`, { cause: error });
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new Error(`POST ${new URL(target.url).origin} failed: ${error instanceof Error ? error.message : String(error)}${cause}`, { cause: error });
  }
  if (answer.status >= 200 && answer.status < 300) {
    await answer.body?.cancel();
    return;
  }
  const text = (await answer.text().catch(() => '')).slice(0, 200);
  throw new Error(`POST ${new URL(target.url).origin} answered HTTP ${answer.status}${text ? `: ${text}` : ''}`);
}
