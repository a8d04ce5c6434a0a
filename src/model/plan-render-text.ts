/**
 * @module A plan as text for a terminal, in the manner of `terraform plan`: a legend, one block
 * per change with its field lines, and a closing summary line.
 */
import type { FieldDiff, Plan, PlanAction, PlannedChange } from './plan.js';
import { SENSITIVE_MASK } from './plan-diff.js';
import { displayName } from './resource.js';
import { paletteFor, type Palette } from './terminal-color.js';

export interface TextRenderOptions {
  /** ANSI colour; decide with `shouldUseColor`. */
  color: boolean;
  /** List unchanged resources too (default false). */
  showNoop?: boolean;
}

export const NO_CHANGES_LINE = 'No changes. Your infrastructure matches the configuration.';

const LEGEND: Record<Exclude<PlanAction, 'noop'>, string> = {
  create: 'create',
  import: 'import (adopt what the vendor already has)',
  update: 'update in-place',
  replace: 'delete and then create replacement',
  delete: 'delete',
};

const HEADLINE: Record<PlanAction, string> = {
  create: 'will be created',
  import: 'will be imported',
  update: 'will be updated in-place',
  replace: 'must be replaced',
  delete: 'will be deleted',
  noop: 'has no changes',
};

export function renderPlanText(plan: Plan, options: TextRenderOptions): string {
  const palette = paletteFor(options.color);
  const shown = plan.changes.filter((c) => c.action !== 'noop' || options.showNoop === true);
  const lines: string[] = [];
  const actions = (Object.keys(LEGEND) as (keyof typeof LEGEND)[]).filter((a) => plan.summary[a] > 0);
  if (actions.length > 0) {
    lines.push('Resource actions are indicated with the following symbols:');
    for (const action of actions) lines.push(`${actionSymbol(action, palette)} ${LEGEND[action]}`);
    lines.push('', 'cairn will perform the following actions:', '');
  }
  for (const change of shown) lines.push(...renderChangeLines(change, palette), '');
  lines.push(palette.bold(summaryLine(plan)));
  return lines.join('\n') + '\n';
}

/**
 * `Plan: 1 to create, 1 to update, 1 to replace, 0 to delete.` (with `1 to import, ` after the
 * creates when there are imports) or the no-changes line.
 */
export function summaryLine(plan: Plan): string {
  const { create, import: imports, update, replace, delete: deletes } = plan.summary;
  if (create + imports + update + replace + deletes === 0) return NO_CHANGES_LINE;
  const importing = imports > 0 ? `${imports} to import, ` : '';
  return `Plan: ${create} to create, ${importing}${update} to update, ${replace} to replace, ${deletes} to delete.`;
}

/** One change's header line and, except for deletes and noops, its indented field lines. */
export function renderChangeLines(change: PlannedChange, palette: Palette): string[] {
  const adopting = change.action === 'import' && change.externalId !== undefined ? ` (vendor id ${change.externalId})` : '';
  const header = `${actionSymbol(change.action, palette)} ${palette.bold(displayName(change))} ${HEADLINE[change.action]}${adopting}`;
  if (change.action === 'delete' || change.action === 'noop') return [header];
  return [header, ...change.diff.map((diff) => `      ${renderFieldLine(diff, palette)}`)];
}

/** `~ spec.size: "small" → "medium"`, `+ spec.image: "debian-12"`, `- metadata.labels.team: "shop"`. */
export function renderFieldLine(diff: FieldDiff, palette: Palette): string {
  const suffix = diff.forcesReplacement ? palette.red('  # forces replacement') : '';
  if (diff.before === undefined) return `${palette.green('+')} ${diff.path}: ${formatDiffValue(diff.after, diff.sensitive)}${suffix}`;
  if (diff.after === undefined) return `${palette.red('-')} ${diff.path}: ${formatDiffValue(diff.before, diff.sensitive)}${suffix}`;
  const change = `${formatDiffValue(diff.before, diff.sensitive)} → ${formatDiffValue(diff.after, diff.sensitive)}`;
  return `${palette.yellow('~')} ${diff.path}: ${change}${suffix}`;
}

/** A value as JSON on one line; a sensitive one as `(sensitive)` whatever it holds. */
export function formatDiffValue(value: unknown, sensitive: boolean): string {
  if (sensitive) return SENSITIVE_MASK;
  return JSON.stringify(value) ?? 'null';
}

/** The action's symbol, right-aligned in three columns: `  +`, `  ~`, `-/+`, `  -`. */
function actionSymbol(action: PlanAction, palette: Palette): string {
  switch (action) {
    case 'create':
      return `  ${palette.green('+')}`;
    case 'import':
      return `  ${palette.green('<')}`;
    case 'update':
      return `  ${palette.yellow('~')}`;
    case 'replace':
      return `${palette.red('-')}/${palette.green('+')}`;
    case 'delete':
      return `  ${palette.red('-')}`;
    case 'noop':
      return '   ';
  }
}
