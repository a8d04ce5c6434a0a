/**
 * @module Verifies a push webhook (a git source's or an App's) against its secret, in constant time: GitHub signs the
 * raw body (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`), GitLab sends the secret itself
 * (`X-Gitlab-Token`). Anything else, or a mismatch, is refused.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type WebhookVerdict = { ok: true; sender: 'github' | 'gitlab' } | { ok: false; reason: string };

/** A new source's webhook secret: 256 random bits, URL-safe so it can be pasted into GitHub or GitLab as is. */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two strings in time that depends only on their digests' length. */
function sameSecret(a: string | Buffer, b: string | Buffer): boolean {
  const digest = (value: string | Buffer): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** A GitHub signature header for `body` under `secret` (what GitHub sends; tests send it too). */
export function githubSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function verifyWebhook(header: (name: string) => string | undefined, rawBody: Buffer, secret: string): WebhookVerdict {
  const signature = header('x-hub-signature-256');
  if (signature !== undefined) {
    return sameSecret(signature, githubSignature(secret, rawBody)) ? { ok: true, sender: 'github' } : { ok: false, reason: 'X-Hub-Signature-256 does not match the body signed with the webhook secret' };
  }
  const token = header('x-gitlab-token');
  if (token !== undefined) {
    return sameSecret(token, secret) ? { ok: true, sender: 'gitlab' } : { ok: false, reason: 'X-Gitlab-Token is not the webhook secret' };
  }
  return { ok: false, reason: 'the webhook carries no signature: send X-Hub-Signature-256 (GitHub) or X-Gitlab-Token (GitLab)' };
}
