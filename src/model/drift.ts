/**
 * @module Drift as `cairn plan --refresh` shows it, like `terraform plan` shows changes made
 * outside Terraform: per resource, what the vendor has now that differs from what cairn last
 * converged (`field: at the vendor → as declared`), and whether applying puts it back
 * (self-heal) or only reports it.
 */
import type { Kind } from './kinds.js';
import { displayName } from './resource.js';

export interface DriftItem {
  kind: Kind;
  namespace: string;
  name: string;
  /** `size: large → small`, `Server srv-1 no longer exists at ...`; or why it could not be looked at. */
  changes: string[];
  /** `cairn.dev/self-heal` is not "false": cairn puts it back. */
  selfHeal: boolean;
  /** It could not be observed (the message is in `changes`). */
  unobservable?: boolean;
}

/** Drift cairn will correct: counts as a change for `--detailed-exitcode`. */
export function driftNeedsChange(items: readonly DriftItem[]): boolean {
  return items.some((d) => d.selfHeal && !d.unobservable);
}

function outcome(d: DriftItem): string {
  if (d.unobservable) return 'could not be looked at';
  return d.selfHeal ? 'cairn puts it back' : 'self-heal is off: reported only';
}

/** Lines to print before the plan; empty when nothing drifted. */
export function renderDriftText(items: readonly DriftItem[]): string {
  if (items.length === 0) return 'No changes outside cairn: the world matches what cairn last converged.\n\n';
  const lines = ['Objects have changed outside of cairn:', ''];
  for (const d of items) {
    lines.push(`  ~ ${displayName(d)} (${outcome(d)})`);
    for (const change of d.changes) lines.push(`      ${change}`);
  }
  return `${lines.join('\n')}\n\n`;
}

/** A Markdown section to put before the plan's comment. */
export function renderDriftMarkdown(items: readonly DriftItem[]): string {
  if (items.length === 0) return '';
  const rows = items.map((d) => `| \`${displayName(d)}\` | ${d.changes.map((c) => `\`${c.replaceAll('|', '\\|')}\``).join('<br>')} | ${outcome(d)} |`);
  return ['### Changed outside cairn', '', '| resource | at the vendor → declared | |', '|---|---|---|', ...rows, '', ''].join('\n');
}

export function driftToJson(items: readonly DriftItem[]): Array<Record<string, unknown>> {
  return items.map((d) => ({ kind: d.kind, namespace: d.namespace, name: d.name, changes: d.changes, self_heal: d.selfHeal, ...(d.unobservable ? { unobservable: true } : {}) }));
}
