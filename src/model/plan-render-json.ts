/**
 * @module A plan as JSON in API.md's shape (snake_case, `format_version`), for `cairn plan -o json`
 * and the REST API's dry run. Absent values become null; sensitive ones stay masked.
 */
import { PLAN_FORMAT_VERSION, type FieldDiff, type Plan, type PlanAction, type PlannedChange, type PlanSummary } from './plan.js';
import { SENSITIVE_MASK } from './plan-diff.js';
import type { Kind } from './kinds.js';

export interface FieldDiffApiJson {
  path: string;
  before: unknown;
  after: unknown;
  forces_replacement: boolean;
  sensitive: boolean;
}

export interface PlannedChangeApiJson {
  action: PlanAction;
  kind: Kind;
  namespace: string;
  name: string;
  uid?: string;
  diff: FieldDiffApiJson[];
  replacement_reasons: string[];
  /** On imports: the vendor's id the resource is adopted by. */
  external_id?: string;
}

export interface PlanApiJson {
  format_version: '1.0';
  changes: PlannedChangeApiJson[];
  summary: PlanSummary;
}

/** The plan as the API returns it; keys in a fixed order so the JSON text is stable. */
export function planToApiJson(plan: Plan): PlanApiJson {
  const { create, import: imports, update, replace, delete: deletes, noop } = plan.summary;
  return {
    format_version: plan.formatVersion,
    changes: plan.changes.map(changeToApiJson),
    summary: { create, import: imports, update, replace, delete: deletes, noop },
  };
}

/** The plan as indented JSON text, ending with a newline. */
export function renderPlanJson(plan: Plan): string {
  return `${JSON.stringify(planToApiJson(plan), null, 2)}\n`;
}

function changeToApiJson(change: PlannedChange): PlannedChangeApiJson {
  return {
    action: change.action,
    kind: change.kind,
    namespace: change.namespace,
    name: change.name,
    ...(change.uid === undefined ? {} : { uid: change.uid }),
    diff: change.diff.map(diffToApiJson),
    replacement_reasons: [...change.replacementReasons],
    ...(change.externalId === undefined ? {} : { external_id: change.externalId }),
  };
}

function diffToApiJson(diff: FieldDiff): FieldDiffApiJson {
  return {
    path: diff.path,
    before: jsonValue(diff.before, diff.sensitive),
    after: jsonValue(diff.after, diff.sensitive),
    forces_replacement: diff.forcesReplacement,
    sensitive: diff.sensitive,
  };
}

function jsonValue(value: unknown, sensitive: boolean): unknown {
  if (value === undefined) return null;
  return sensitive ? SENSITIVE_MASK : value;
}

/** A plan read back from the API's JSON (a remote dry run), for rendering as text or Markdown. */
export function planFromApiJson(json: Omit<PlanApiJson, 'format_version'> & { format_version?: string }): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    changes: json.changes.map((c) => ({
      action: c.action,
      kind: c.kind,
      namespace: c.namespace,
      name: c.name,
      ...(c.uid === undefined ? {} : { uid: c.uid }),
      diff: c.diff.map((d) => ({ path: d.path, before: d.before ?? undefined, after: d.after ?? undefined, forcesReplacement: d.forces_replacement, sensitive: d.sensitive })),
      replacementReasons: [...c.replacement_reasons],
      ...(c.external_id === undefined ? {} : { externalId: c.external_id }),
    })),
    // A server from before imports existed sends no `import` count.
    summary: { ...json.summary, import: json.summary.import ?? 0 },
  };
}
