/**
 * @module A plan as Markdown for a pull-request comment: a heading, the summary, a table of the
 * changes and the text plan in a collapsed ```diff block; cut to fit GitHub's comment limit.
 */
import type { Plan, PlanAction, PlannedChange } from './plan.js';
import { renderChangeLines, summaryLine } from './plan-render-text.js';
import { paletteFor } from './terminal-color.js';

/** GitHub refuses comments longer than this. */
export const MARKDOWN_COMMENT_LIMIT = 65_536;

export interface MarkdownRenderOptions {
  /** The heading; default `cairn plan`. */
  title?: string;
  /** Upper bound on the comment's length (default MARKDOWN_COMMENT_LIMIT). */
  maxLength?: number;
}

const TABLE_SYMBOL: Record<PlanAction, string> = {
  create: '+ create',
  import: '< import',
  update: '~ update',
  replace: '-/+ replace',
  delete: '- delete',
  noop: 'no change',
};

/** How many changed fields a table row names before it says "and N more". */
const FIELDS_PER_ROW = 5;

export function renderPlanMarkdown(plan: Plan, options: MarkdownRenderOptions = {}): string {
  const limit = options.maxLength ?? MARKDOWN_COMMENT_LIMIT;
  const changes = plan.changes.filter((c) => c.action !== 'noop');
  const rows = changes.map(tableRow);
  const blocks = changes.map((c) => toDiffLines(renderChangeLines(c, paletteFor(false))).join('\n'));

  // Take as many changes as fit, keeping room for the frame, then shrink while still too long.
  let kept = 0;
  let used = renderComment(plan, options, rows, blocks, 0).length + 400;
  while (kept < changes.length && used + (rows[kept]?.length ?? 0) + (blocks[kept]?.length ?? 0) + 3 <= limit) {
    used += (rows[kept]?.length ?? 0) + (blocks[kept]?.length ?? 0) + 3;
    kept += 1;
  }
  let comment = renderComment(plan, options, rows, blocks, kept);
  while (comment.length > limit && kept > 0) {
    kept -= 1;
    comment = renderComment(plan, options, rows, blocks, kept);
  }
  return comment;
}

function renderComment(plan: Plan, options: MarkdownRenderOptions, rows: string[], blocks: string[], kept: number): string {
  const parts = [`### ${options.title ?? 'cairn plan'}`, '', `**${summaryLine(plan)}**`];
  if (rows.length === 0) return parts.join('\n') + '\n';
  const left = rows.length - kept;
  if (kept > 0) {
    parts.push('', '| Action | Kind | Namespace | Name | Changed fields |', '| --- | --- | --- | --- | --- |', ...rows.slice(0, kept));
  }
  if (left > 0) {
    parts.push('', `> **Note:** ${left} of ${rows.length} changes were left out to fit GitHub's comment size limit; run \`cairn plan\` to see them all.`);
  }
  if (kept > 0) {
    const diff = [...blocks.slice(0, kept), summaryLine(plan)].join('\n\n');
    const fence = codeFence(diff);
    parts.push('', '<details><summary>Show the full plan</summary>', '', `${fence}diff`, diff, fence, '', '</details>');
  }
  return parts.join('\n') + '\n';
}

function tableRow(change: PlannedChange): string {
  const cells = [TABLE_SYMBOL[change.action], change.kind, change.namespace, change.name, changedFields(change)];
  return `| ${cells.map(escapeTableCell).join(' | ')} |`;
}

function changedFields(change: PlannedChange): string {
  if (change.action === 'create') return '(new)';
  if (change.action === 'import') return `(adopts vendor id ${change.externalId ?? '?'})`;
  if (change.action === 'delete') return '(deleted)';
  const names = change.diff.map((d) => (d.forcesReplacement ? `${d.path} (forces replacement)` : d.path));
  const shown = names.slice(0, FIELDS_PER_ROW).join(', ');
  return names.length > FIELDS_PER_ROW ? `${shown} and ${names.length - FIELDS_PER_ROW} more` : shown;
}

/** Escapes what would end a table cell or start Markdown or HTML inside one. */
export function escapeTableCell(text: string): string {
  return text.replace(/[\\|`*_[\]<>]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/**
 * GitHub colours a diff block by each line's first character, so the change symbol moves to
 * the front (`  + Server/web-1` → `+   Server/web-1`); `~` becomes `!`, shown as changed.
 */
function toDiffLines(lines: readonly string[]): string[] {
  return lines.map((line) => {
    const match = /^( *)(-\/\+|[-+~])(.*)$/.exec(line);
    if (match === null) return line;
    const [, indent = '', symbol = '', rest = ''] = match;
    const lead = symbol === '~' ? '!' : symbol.charAt(0);
    return `${lead}${indent}${symbol === '-/+' ? '/+' : ' '.repeat(symbol.length - 1)}${rest}`;
  });
}

/** A backtick fence longer than any run of backticks in the content, so values cannot close it. */
function codeFence(content: string): string {
  let longest = 0;
  for (const run of content.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}
