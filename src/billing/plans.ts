/**
 * @module The plans cairn sells (API.md "Billing"): free, pro and business, each with a monthly
 * price, a trial (7 days on the paid plans) and limits on servers, databases and apps. Amounts and
 * limits come from `billing-plans.yaml` in the data dir when it exists, else the defaults here;
 * a file that says something wrong is refused naming the file, the line and the field. The
 * Stripe Price of each paid plan comes from CAIRN_STRIPE_PRICE_PRO / CAIRN_STRIPE_PRICE_BUSINESS.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from 'yaml';
import { CairnError } from '../model/errors.js';
import { yaml } from '../model/yaml-library.js';

export const PLAN_IDS = ['free', 'pro', 'business'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export const PAID_PLAN_IDS = ['pro', 'business'] as const;
export type PaidPlanId = (typeof PAID_PLAN_IDS)[number];

export const QUOTA_KINDS = ['servers', 'databases', 'apps'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];
export type PlanLimits = Record<QuotaKind, number>;

export interface Plan {
  id: PlanId;
  name: string;
  priceMonthlyCents: number;
  currency: string;
  trialDays: number;
  limits: PlanLimits;
}

export const PLANS_FILE = 'billing-plans.yaml';
export const PAID_TRIAL_DAYS = 7;

export const DEFAULT_PLANS: Readonly<Record<PlanId, Plan>> = {
  free: { id: 'free', name: 'Free', priceMonthlyCents: 0, currency: 'usd', trialDays: 0, limits: { servers: 2, databases: 1, apps: 2 } },
  pro: { id: 'pro', name: 'Pro', priceMonthlyCents: 2900, currency: 'usd', trialDays: PAID_TRIAL_DAYS, limits: { servers: 10, databases: 5, apps: 10 } },
  business: { id: 'business', name: 'Business', priceMonthlyCents: 9900, currency: 'usd', trialDays: PAID_TRIAL_DAYS, limits: { servers: 50, databases: 25, apps: 50 } },
};

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

export function isPaidPlanId(value: unknown): value is PaidPlanId {
  return typeof value === 'string' && (PAID_PLAN_IDS as readonly string[]).includes(value);
}

/** A plans file that cannot be used: the message names the file, the line and the field. */
export class PlansFileError extends CairnError {
  readonly code = 'validation_failed';
  override readonly name = 'PlansFileError';
}

const PLAN_FIELDS = ['name', 'price_monthly_cents', 'currency', 'limits'] as const;

/**
 * The plans of a data dir: `billing-plans.yaml` there laid over the defaults, e.g.
 *
 *     plans:
 *       pro: { price_monthly_cents: 3900, limits: { servers: 20, databases: 10, apps: 20 } }
 */
export function loadPlans(dataDir: string): Record<PlanId, Plan> {
  const path = join(dataDir, PLANS_FILE);
  if (!existsSync(path)) return structuredClone(DEFAULT_PLANS);
  return parsePlansText(readFileSync(path, 'utf8'), path);
}

/** Parses a plans file's text (`file` names it in errors). */
export function parsePlansText(text: string, file: string): Record<PlanId, Plan> {
  const { isMap, isScalar, LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const refuse = (node: Node | null | undefined, field: string, why: string): never => {
    const offset = node?.range?.[0] ?? 0;
    throw new PlansFileError(`${file} line ${lines.linePos(offset).line}: ${field} ${why}`);
  };
  const firstError = doc.errors[0];
  if (firstError) throw new PlansFileError(`${file} line ${lines.linePos(firstError.pos[0]).line}: not valid YAML (${firstError.message.split('\n')[0]})`);
  const plans = structuredClone(DEFAULT_PLANS) as Record<PlanId, Plan>;
  const root = doc.contents;
  if (root === null) return plans;
  if (!isMap(root)) return refuse(root, 'the file', 'must be a mapping with a `plans` key');
  for (const pair of root.items) {
    const key = pair.key as Node;
    if (!isScalar(key) || key.value !== 'plans') return refuse(key, String(isScalar(key) ? key.value : 'key'), 'is not a known setting (only `plans`)');
    const planMap = pair.value as Node | null;
    if (!isMap(planMap)) return refuse(planMap ?? key, 'plans', 'must be a mapping of plan ids (free, pro, business)');
    for (const planPair of planMap.items) {
      const planKey = planPair.key as Node;
      const id = isScalar(planKey) ? String(planKey.value) : '';
      if (!isPlanId(id)) return refuse(planKey, `plans.${id}`, `is not a plan; the plans are ${PLAN_IDS.join(', ')}`);
      const fields = planPair.value as Node | null;
      if (!isMap(fields)) return refuse(fields ?? planKey, `plans.${id}`, 'must be a mapping of name, price_monthly_cents, currency, limits');
      for (const fieldPair of fields.items) {
        const fieldKey = fieldPair.key as Node;
        const field = isScalar(fieldKey) ? String(fieldKey.value) : '';
        const value = fieldPair.value as Node | null;
        const at = `plans.${id}.${field}`;
        if (!(PLAN_FIELDS as readonly string[]).includes(field)) return refuse(fieldKey, at, `is not a plan field; the fields are ${PLAN_FIELDS.join(', ')}`);
        const scalar = isScalar(value) ? value.value : undefined;
        if (field === 'name') {
          if (typeof scalar !== 'string' || scalar.trim() === '') return refuse(value ?? fieldKey, at, 'must be a non-empty string');
          plans[id].name = scalar;
        } else if (field === 'price_monthly_cents') {
          if (!isCount(scalar)) return refuse(value ?? fieldKey, at, `must be a whole number of cents, 0 or more, got ${shown(scalar)}`);
          if (id === 'free' && scalar !== 0) return refuse(value, at, 'must be 0: the free plan is free');
          plans[id].priceMonthlyCents = scalar;
        } else if (field === 'currency') {
          if (typeof scalar !== 'string' || !/^[a-zA-Z]{3}$/.test(scalar)) return refuse(value ?? fieldKey, at, `must be a three-letter ISO currency code like usd, got ${shown(scalar)}`);
          plans[id].currency = scalar.toLowerCase();
        } else {
          if (!isMap(value)) return refuse(value ?? fieldKey, at, 'must be a mapping of servers, databases, apps');
          for (const limitPair of value.items) {
            const limitKey = limitPair.key as Node;
            const kind = isScalar(limitKey) ? String(limitKey.value) : '';
            const limitValue = limitPair.value as Node | null;
            const limit = isScalar(limitValue) ? limitValue.value : undefined;
            if (!(QUOTA_KINDS as readonly string[]).includes(kind)) return refuse(limitKey, `${at}.${kind}`, `is not a limit; the limits are ${QUOTA_KINDS.join(', ')}`);
            if (!isCount(limit)) return refuse(limitValue ?? limitKey, `${at}.${kind}`, `must be a whole number, 0 or more, got ${shown(limit)}`);
            plans[id].limits[kind as QuotaKind] = limit;
          }
        }
      }
    }
  }
  return plans;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function shown(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

/** "server" or "servers" as a count needs. */
export function kindWord(kind: QuotaKind, count: number): string {
  return count === 1 ? kind.slice(0, -1) : kind;
}
