/**
 * @module AlertRules: nothing is made at a vendor; the rule is evaluated by the alert loop
 * (src/alerts/). The reconciler checks what the loop cannot do without (an e-mail channel needs
 * CAIRN_SMTP_URL and CAIRN_MAIL_FROM: a stall naming them), marks the rule `ready`, and on
 * deletion forgets its conditions, resolves its firing alerts without notice, fails its
 * notifications not yet sent and removes its webhook secret, in one transaction.
 */
import { MAIL_FROM_SETTING, mailConfigured, SMTP_URL_SETTING } from '../alerts/alert-settings.js';
import type { StoredResource } from '../model/resource.js';
import type { ReconcileContext, ReconcileResult } from './context.js';
import { StallError } from './errors.js';
import { REMOVED } from './managed.js';
import type { StatusDraft } from './status-draft.js';

export const REASON_RULE_ACTIVE = 'RuleActive';
export const REASON_EMAIL_NOT_CONFIGURED = 'EmailNotConfigured';

/** Why a rule cannot notify as it says, or undefined when it can. */
export function emailChannelProblem(spec: StoredResource<'AlertRule'>['spec'], env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!(spec.channels ?? []).some((c) => c.type === 'email') || mailConfigured(env)) return undefined;
  return `an email channel needs ${SMTP_URL_SETTING} and ${MAIL_FROM_SETTING} set (and valid) where cairn serves; set them, or remove the email channel`;
}

export function describeRule(spec: StoredResource<'AlertRule'>['spec']): string {
  return `fires when ${spec.metric} > ${spec.threshold} for ${spec.forSeconds ?? 60} s; ${(spec.channels ?? []).length} channel(s)`;
}

export function reconcileAlertRule(ctx: ReconcileContext, r: StoredResource<'AlertRule'>, draft: StatusDraft): Promise<ReconcileResult> {
  if (r.deletionTimestamp !== null) {
    draft.setPhase('deleting');
    const removed = ctx.store.transaction(() => {
      if (!ctx.store.resources.removeDeleted(r.uid, r.generation)) return false;
      ctx.store.alerts.forgetRule(r.uid, ctx.now().toISOString(), `alert rule ${r.name} was deleted before this notification was sent`);
      ctx.store.secrets.delete(r.tenant, 'alert-webhook', r.uid);
      return true;
    });
    if (!removed) return Promise.resolve({ requeueAfterMs: 0 });
    ctx.record(r, 'Normal', 'Deleted', `alert rule ${r.name} removed`);
    return Promise.resolve(REMOVED);
  }
  const problem = emailChannelProblem(r.spec);
  if (problem !== undefined) throw new StallError(REASON_EMAIL_NOT_CONFIGURED, problem);
  draft.setPhase('ready');
  draft.markReady(REASON_RULE_ACTIVE, describeRule(r.spec));
  return Promise.resolve({});
}
