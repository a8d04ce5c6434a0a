/**
 * @module Alert rules between REST and manifests: the record (the spec's fields, the selector with
 * servers by id), and the AlertRule manifest a create or update body becomes. REST's
 * `selector.server_ids` are the manifest's `selector.servers` (names); the rest goes through the
 * generated field table. An email channel where cairn has no SMTP settings is a 422 naming them.
 */
import type { AlertRuleSpec } from '../../model/generated/kinds.js';
import { ValidationError } from '../../model/errors.js';
import type { Manifest, StoredResource } from '../../model/resource.js';
import { MAIL_FROM_SETTING, mailConfigured, SMTP_URL_SETTING } from '../../alerts/alert-settings.js';
import { apiMetadata, baseRecord, keptMetadata, type BaseRecord } from './common.js';
import type { ResourceLookup } from './lookup.js';
import { applyBodyFields, specRecordFields } from './rest-fields.js';

export interface AlertRuleSelectorBody {
  labels?: Record<string, string>;
  server_ids?: string[];
}

export interface AlertRuleCreateBody {
  name: string;
  metric: AlertRuleSpec['metric'];
  threshold: number;
  for_seconds?: number;
  selector?: AlertRuleSelectorBody;
  channels?: AlertRuleSpec['channels'];
  labels?: Record<string, string>;
}

export type AlertRuleUpdateBody = Partial<Omit<AlertRuleCreateBody, 'name'>>;

export interface AlertRuleRecord extends BaseRecord {
  metric: AlertRuleSpec['metric'];
  threshold: number;
  for_seconds: number;
  channels: NonNullable<AlertRuleSpec['channels']>;
  selector: { labels: Record<string, string>; server_ids: string[] };
}

export function alertRuleRecord(r: StoredResource<'AlertRule'>, lookup: ResourceLookup): AlertRuleRecord {
  return {
    ...baseRecord(r),
    ...(specRecordFields('AlertRule', r.spec) as Pick<AlertRuleRecord, 'metric' | 'threshold' | 'for_seconds' | 'channels'>),
    selector: {
      labels: r.spec.selector.labels ?? {},
      server_ids: (r.spec.selector.servers ?? []).map((name) => lookup.idOf('Server', name, r.namespace)).filter((id): id is string => id !== null),
    },
  };
}

/** The manifest's selector from REST's: server ids resolved to the tenant's servers' names (an unknown id is a 422 on it). */
function selectorOf(body: AlertRuleSelectorBody, lookup: ResourceLookup): AlertRuleSpec['selector'] {
  const selector: AlertRuleSpec['selector'] = {};
  if (body.labels !== undefined) selector.labels = body.labels;
  if (body.server_ids !== undefined) {
    selector.servers = body.server_ids.map((id, index) => lookup.referenced('Server', id, `/selector/server_ids/${index}`).name);
  }
  return selector;
}

/** A 422 on the first email channel when cairn cannot send e-mail. */
export function checkEmailChannels(spec: AlertRuleSpec, env: NodeJS.ProcessEnv = process.env): void {
  const index = (spec.channels ?? []).findIndex((c) => c.type === 'email');
  if (index < 0 || mailConfigured(env)) return;
  const message = `an email channel needs cairn's mail settings ${SMTP_URL_SETTING} and ${MAIL_FROM_SETTING}, which are not set (or not valid) where cairn serves; set them, or use a webhook channel`;
  throw new ValidationError(`channels/${index}: ${message}`, [{ pointer: `/channels/${index}`, message }]);
}

export function alertRuleManifest(body: AlertRuleCreateBody, lookup: ResourceLookup): Manifest<'AlertRule'> {
  if (body.selector === undefined) {
    const message = 'is required: which servers the rule watches, by labels and/or server_ids';
    throw new ValidationError(`selector: ${message}`, [{ pointer: '/selector', message }]);
  }
  const spec = { selector: selectorOf(body.selector, lookup) } as AlertRuleSpec;
  applyBodyFields('AlertRule', 'create', body, spec);
  return { apiVersion: 'cairn.dev/v1', kind: 'AlertRule', metadata: apiMetadata(body.name, body.labels), spec };
}

export function updatedAlertRuleManifest(current: StoredResource<'AlertRule'>, body: AlertRuleUpdateBody, lookup: ResourceLookup): Manifest<'AlertRule'> {
  const spec: AlertRuleSpec = structuredClone(current.spec);
  applyBodyFields('AlertRule', 'update', body, spec);
  if (body.selector !== undefined) spec.selector = selectorOf(body.selector, lookup);
  return { apiVersion: 'cairn.dev/v1', kind: 'AlertRule', metadata: keptMetadata(current, body.labels), spec };
}
