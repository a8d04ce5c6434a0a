/**
 * @module Webhook verification: GitHub's HMAC over the raw body and GitLab's token, each accepted
 * only when it matches, and nothing accepted without one.
 */
import { describe, expect, it } from 'vitest';
import { githubSignature, verifyWebhook } from './webhook-signature.js';

const headers = (h: Record<string, string>) => (name: string): string | undefined => h[name];
const body = Buffer.from('{"ref":"refs/heads/main"}');

describe('verifyWebhook', () => {
  it('accepts a GitHub signature of the exact body and refuses one of another body or secret', () => {
    expect(verifyWebhook(headers({ 'x-hub-signature-256': githubSignature('s3cret', body) }), body, 's3cret')).toEqual({ ok: true, sender: 'github' });
    expect(verifyWebhook(headers({ 'x-hub-signature-256': githubSignature('s3cret', '{}') }), body, 's3cret').ok).toBe(false);
    expect(verifyWebhook(headers({ 'x-hub-signature-256': githubSignature('other', body) }), body, 's3cret').ok).toBe(false);
    expect(verifyWebhook(headers({ 'x-hub-signature-256': 'sha256=00' }), body, 's3cret').ok).toBe(false);
  });

  it('accepts the GitLab token only when it is the secret', () => {
    expect(verifyWebhook(headers({ 'x-gitlab-token': 's3cret' }), body, 's3cret')).toEqual({ ok: true, sender: 'gitlab' });
    expect(verifyWebhook(headers({ 'x-gitlab-token': 's3cre' }), body, 's3cret').ok).toBe(false);
  });

  it('refuses a webhook without a signature, saying what to send', () => {
    const verdict = verifyWebhook(headers({}), body, 's3cret');
    expect(verdict.ok).toBe(false);
    expect(verdict.ok === false && verdict.reason).toMatch(/X-Hub-Signature-256.*X-Gitlab-Token/);
  });
});
