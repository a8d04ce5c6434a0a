/**
 * @module Whether billing is on, and with what: CAIRN_STRIPE_SECRET_KEY turns it on (unset, the
 * default on a laptop, every tenant is on an unlimited self-hosted plan); with it,
 * CAIRN_STRIPE_WEBHOOK_SECRET, CAIRN_STRIPE_PRICE_PRO and CAIRN_STRIPE_PRICE_BUSINESS are
 * required, CAIRN_STRIPE_API_BASE points the SDK elsewhere (tests, proxies) and
 * CAIRN_PUBLIC_URL is the origin checkout and portal return URLs must be on.
 */
import { CairnError } from '../model/errors.js';
import { httpUrlSetting, PUBLIC_URL_SETTING, UrlSettingError } from '../net/url-setting.js';
import type { PaidPlanId } from './plans.js';

export const STRIPE_SECRET_KEY_SETTING = 'CAIRN_STRIPE_SECRET_KEY';
export const STRIPE_WEBHOOK_SECRET_SETTING = 'CAIRN_STRIPE_WEBHOOK_SECRET';
export const STRIPE_API_BASE_SETTING = 'CAIRN_STRIPE_API_BASE';
export const PRICE_SETTINGS: Readonly<Record<PaidPlanId, string>> = { pro: 'CAIRN_STRIPE_PRICE_PRO', business: 'CAIRN_STRIPE_PRICE_BUSINESS' };

/** The settings that turn billing on, for messages that say how. */
export const BILLING_ON_SETTINGS = [STRIPE_SECRET_KEY_SETTING, STRIPE_WEBHOOK_SECRET_SETTING, PRICE_SETTINGS.pro, PRICE_SETTINGS.business] as const;

export interface BillingSettings {
  secretKey: string;
  webhookSecret: string;
  /** Where the Stripe SDK sends its requests, when not Stripe's own API. */
  apiBase?: URL;
  prices: Record<PaidPlanId, string>;
  /** The origin browsers reach cairn at; return URLs must be on it (localhost when unset). */
  publicUrl?: URL;
}

/** Billing settings that cannot be used; the message names each setting and why. */
export class BillingSettingsError extends CairnError {
  readonly code = 'validation_failed';
  override readonly name = 'BillingSettingsError';
}

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function billingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return setting(env, STRIPE_SECRET_KEY_SETTING) !== undefined;
}

/** The billing settings, or undefined when billing is off; throws naming every bad or missing setting. */
export function billingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): BillingSettings | undefined {
  const secretKey = setting(env, STRIPE_SECRET_KEY_SETTING);
  if (secretKey === undefined) return undefined;
  const problems: string[] = [];
  const webhookSecret = setting(env, STRIPE_WEBHOOK_SECRET_SETTING);
  if (webhookSecret === undefined) problems.push(`${STRIPE_WEBHOOK_SECRET_SETTING} is not set (the signing secret of the webhook endpoint, whsec_...)`);
  const pro = setting(env, PRICE_SETTINGS.pro);
  const business = setting(env, PRICE_SETTINGS.business);
  if (pro === undefined) problems.push(`${PRICE_SETTINGS.pro} is not set (the Stripe Price id of the pro plan, price_...)`);
  if (business === undefined) problems.push(`${PRICE_SETTINGS.business} is not set (the Stripe Price id of the business plan, price_...)`);
  const apiBase = httpUrl(env, STRIPE_API_BASE_SETTING, problems);
  const publicUrl = httpUrl(env, PUBLIC_URL_SETTING, problems);
  if (problems.length > 0 || webhookSecret === undefined || pro === undefined || business === undefined) {
    throw new BillingSettingsError(`billing is on (${STRIPE_SECRET_KEY_SETTING} is set) but ${problems.join('; ')}`);
  }
  return { secretKey, webhookSecret, prices: { pro, business }, ...(apiBase ? { apiBase } : {}), ...(publicUrl ? { publicUrl } : {}) };
}

function httpUrl(env: NodeJS.ProcessEnv, name: string, problems: string[]): URL | undefined {
  try {
    return httpUrlSetting(env, name);
  } catch (error) {
    if (!(error instanceof UrlSettingError)) throw error;
    problems.push(error.message);
    return undefined;
  }
}
