/**
 * @module The three renderings of a plan, in one import: text for a terminal, JSON for the API
 * and `-o json`, Markdown for pull-request comments; and the rule for terminal colour.
 */
export { renderPlanText, summaryLine, NO_CHANGES_LINE, type TextRenderOptions } from './plan-render-text.js';
export { renderPlanJson, planToApiJson, type PlanApiJson, type PlannedChangeApiJson, type FieldDiffApiJson } from './plan-render-json.js';
export { renderPlanMarkdown, MARKDOWN_COMMENT_LIMIT, type MarkdownRenderOptions } from './plan-render-markdown.js';
export { shouldUseColor } from './terminal-color.js';
export { SENSITIVE_MASK } from './plan-diff.js';
