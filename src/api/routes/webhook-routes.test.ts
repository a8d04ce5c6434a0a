/**
 * @module The source webhook and the App webhook check signatures with the one `verifyWebhook`
 * (src/sources/webhook-signature.ts) and the one raw body: neither route has a check of its own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const route = (file: string): string => readFileSync(new URL(file, import.meta.url), 'utf8');

describe('webhook routes', () => {
  it.each(['./source-routes.ts', './app-webhook-routes.ts'])('%s verifies with the shared verifyWebhook and raw body only', (file) => {
    const text = route(file);
    expect(text).toContain("import { rawBodyOf } from '../raw-body.js';");
    expect(text).toMatch(/import \{[^}]*\bverifyWebhook\b[^}]*\} from '..\/..\/sources\/webhook-signature.js';/);
    expect(text).toContain('verifyWebhook((name) => req.get(name), rawBodyOf(req), secret)');
    expect(text).not.toMatch(/createHmac|timingSafeEqual|node:crypto/);
  });
});
