/**
 * @module Sending one notification: e-mail through the SMTP server of CAIRN_SMTP_URL
 * (nodemailer), and webhooks through src/net/webhook-post.ts (the outbound guard: the URL is
 * tenant input). Every message carries its delivery's id (`X-Cairn-Delivery`, and the e-mail's
 * Message-ID) so a receiver can drop the copy a crash between sending and recording may cause.
 * A send that did not succeed throws, saying why.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { DELIVERY_HEADER, postWebhook } from '../net/webhook-post.js';
import type { AlertEvent, StoredAlert } from '../store/alerts.js';
import type { MailSettings } from './alert-settings.js';
import { discordBody, emailContent, jsonWebhookBody, slackBody } from './notification-content.js';


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
  if (target.format === 'json' && target.secret === undefined) throw new Error('the rule has no webhook secret to sign with');
  await postWebhook({
    url: target.url, body: webhookBody(target.format, event, alert), deliveryId, userAgent: 'cairn-alerts',
    secret: target.format === 'json' ? target.secret : undefined,
  });
}
