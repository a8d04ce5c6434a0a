/**
 * @module A tenant's usage against its plan (GET /billing/usage): per limited kind how many it
 * has and may have, the period (the subscription's, else the calendar month), and warnings at
 * 80% and at 100% of a limit, or when a past-due payment refuses every new create. With billing
 * off the plan is `self-hosted` and nothing is limited.
 */
import { QUOTA_KINDS, kindWord, type QuotaKind } from './plans.js';

export interface UsageWarning {
  resource: QuotaKind | 'all';
  /** 80: approaching the limit; 100: at it (new ones are refused). */
  threshold: 80 | 100;
  message: string;
}

export interface Usage {
  plan: string;
  periodStart: string;
  periodEnd: string;
  resources: Record<QuotaKind, { used: number; limit: number | null }>;
  warnings: UsageWarning[];
}

export interface UsageInput {
  plan: string;
  /** Null: unlimited (billing off). */
  limits: Record<QuotaKind, number> | null;
  used: Record<QuotaKind, number>;
  period?: { start: string; end: string } | undefined;
  /** Why nothing new may be created at all, when so (past due). */
  createsRefused?: string | undefined;
  now?: Date;
}

export const WARN_AT_PERCENT = 80;

export function usageOf(input: UsageInput): Usage {
  const period = input.period ?? calendarMonth(input.now ?? new Date());
  const resources = Object.fromEntries(
    QUOTA_KINDS.map((kind) => [kind, { used: input.used[kind], limit: input.limits ? input.limits[kind] : null }]),
  ) as Usage['resources'];
  const warnings: UsageWarning[] = [];
  if (input.createsRefused) warnings.push({ resource: 'all', threshold: 100, message: input.createsRefused });
  for (const kind of QUOTA_KINDS) {
    const { used, limit } = resources[kind];
    if (limit === null) continue;
    if (used >= limit) {
      warnings.push({ resource: kind, threshold: 100, message: `${used} of ${limit} ${kindWord(kind, limit)} the ${input.plan} plan allows: new ${kind} are refused until you upgrade or delete some` });
    } else if (used * 100 >= limit * WARN_AT_PERCENT) {
      warnings.push({ resource: kind, threshold: 80, message: `${used} of ${limit} ${kindWord(kind, limit)} the ${input.plan} plan allows (${Math.floor((used * 100) / limit)}%)` });
    }
  }
  return { plan: input.plan, periodStart: period.start, periodEnd: period.end, resources, warnings };
}

function calendarMonth(now: Date): { start: string; end: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}
