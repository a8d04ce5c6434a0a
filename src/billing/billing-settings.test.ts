/** @module Tests of the billing settings: off without a secret key, and every missing or bad setting named at once when on. */
import { describe, expect, it } from 'vitest';
import { billingEnabled, billingSettingsFromEnv, BillingSettingsError } from './billing-settings.js';

describe('billingSettingsFromEnv', () => {
  it('is off without CAIRN_STRIPE_SECRET_KEY', () => {
    expect(billingEnabled({})).toBe(false);
    expect(billingSettingsFromEnv({ CAIRN_STRIPE_PRICE_PRO: 'price_1' })).toBeUndefined();
  });

  it('names every missing or bad setting when billing is on', () => {
    const attempt = (): unknown => billingSettingsFromEnv({ CAIRN_STRIPE_SECRET_KEY: 'sk_test_1', CAIRN_STRIPE_PRICE_PRO: 'price_1', CAIRN_STRIPE_API_BASE: 'ftp://x' });
    expect(attempt).toThrow(BillingSettingsError);
    expect(attempt).toThrow(/CAIRN_STRIPE_WEBHOOK_SECRET is not set.*CAIRN_STRIPE_PRICE_BUSINESS is not set.*CAIRN_STRIPE_API_BASE: "ftp:\/\/x" must be an http or https URL/);
  });

  it('reads the API base and the public URL', () => {
    const settings = billingSettingsFromEnv({
      CAIRN_STRIPE_SECRET_KEY: 'sk_test_1', CAIRN_STRIPE_WEBHOOK_SECRET: 'whsec_1', CAIRN_STRIPE_PRICE_PRO: 'price_1', CAIRN_STRIPE_PRICE_BUSINESS: 'price_2',
      CAIRN_STRIPE_API_BASE: 'http://127.0.0.1:12111', CAIRN_PUBLIC_URL: 'https://cairn.example.com',
    });
    expect(settings?.apiBase?.port).toBe('12111');
    expect(settings?.publicUrl?.origin).toBe('https://cairn.example.com');
    expect(settings?.prices).toEqual({ pro: 'price_1', business: 'price_2' });
  });
});
