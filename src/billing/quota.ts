/**
 * @module Quotas: which plan's limits hold for a tenant now, and the check the store runs inside
 * every write that adds a Server, Database or App (whatever path it came by: REST, `cairn
 * apply`, a watched directory, a git revision, kubectl). Trialing and active subscriptions get
 * their plan's limits; none or canceled, the free plan's; past_due keeps what exists but
 * refuses every new create. With billing off there are no limits and no check.
 */
import { QuotaExceededError } from '../model/errors.js';
import type { Kind } from '../model/kinds.js';
import type { BillingAccount, BillingAccounts } from '../store/billing-accounts.js';
import type { QuotaCheck } from '../store/resources.js';
import { isPaidPlanId, kindWord, type Plan, type PlanId, type QuotaKind } from './plans.js';

/** The kinds a plan limits, by the limit's name. */
export const QUOTA_KIND_OF: Readonly<Partial<Record<Kind, QuotaKind>>> = { Server: 'servers', Database: 'databases', App: 'apps' };

/** What a tenant's account allows now. */
export interface EffectivePlan {
  plan: Plan;
  /** Why no new resource may be made at all (a past-due payment), when so. */
  createsRefused?: string;
}

export function effectivePlan(account: BillingAccount | undefined, plans: Readonly<Record<PlanId, Plan>>): EffectivePlan {
  const status = account?.status ?? 'none';
  const paid = account && isPaidPlanId(account.plan) ? plans[account.plan] : undefined;
  if (!paid || status === 'none' || status === 'canceled') return { plan: plans.free };
  if (status === 'past_due') {
    return {
      plan: paid,
      createsRefused: `the ${paid.id} plan's payment is past due: what exists stays, but nothing new is created until the open invoice is paid (update the payment method through POST /billing/portal)`,
    };
  }
  return { plan: paid };
}

/** The store's quota check for billing on: limits from `plans()` and the tenant's account. */
export function quotaCheckFor(plans: () => Readonly<Record<PlanId, Plan>>, accounts: BillingAccounts): QuotaCheck {
  return (tenant, created, countOf) => {
    const limited = created.filter((kind) => QUOTA_KIND_OF[kind] !== undefined);
    if (limited.length === 0) return;
    const effective = effectivePlan(accounts.get(tenant), plans());
    if (effective.createsRefused) throw new QuotaExceededError(effective.createsRefused);
    for (const kind of limited) {
      const quotaKind = QUOTA_KIND_OF[kind] as QuotaKind;
      const limit = effective.plan.limits[quotaKind];
      const count = countOf(kind);
      if (count > limit) {
        throw new QuotaExceededError(
          `the ${effective.plan.id} plan allows ${limit} ${kindWord(quotaKind, limit)}; this would make ${count} (upgrade with POST /billing/checkout, or delete some first)`,
        );
      }
    }
  };
}
