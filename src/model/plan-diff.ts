/**
 * @module Field-level diff of two resources (spec, metadata.labels, metadata.annotations) down to
 * the leaves, with dotted paths, sensitive values masked and replacement-forcing fields marked.
 */
import { REPLACEMENT_FIELDS, SENSITIVE_PATHS, type Kind } from './kinds.js';
import type { FieldDiff } from './plan.js';

/** What a masked value is shown as, wherever a plan is rendered. */
export const SENSITIVE_MASK = '(sensitive)';

/** The parts of a resource a plan compares. */
export interface DiffableResource {
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  spec: object;
}

type PathSegment = string | number;

interface DiffContext {
  readonly out: FieldDiff[];
  /** Full-path patterns (starting with `spec`), `*` matching any one segment. */
  readonly sensitivePatterns: readonly (readonly string[])[];
  /** Top-level spec fields whose change forces a replacement; empty for creates and deletes. */
  readonly replacementFields: ReadonlySet<string>;
}

const EMPTY: DiffableResource = { labels: {}, annotations: {}, spec: {} };
const NO_FIELDS: ReadonlySet<string> = new Set();
const patternsByKind = new Map<Kind, readonly (readonly string[])[]>();
const replacementByKind = new Map<Kind, ReadonlySet<string>>();

/**
 * Diffs `before` against `after` (either may be null: a create or a delete), in a stable order:
 * spec, then metadata.labels, then metadata.annotations, object keys sorted, array items by index.
 * A replacement-forcing field is only marked when both sides exist.
 */
export function diffResource(kind: Kind, before: DiffableResource | null, after: DiffableResource | null): FieldDiff[] {
  if (before !== null && after !== null && isUnchanged(before, after)) return [];
  const ctx: DiffContext = {
    out: [],
    sensitivePatterns: sensitivePatternsOf(kind),
    replacementFields: before !== null && after !== null ? replacementFieldsOf(kind) : NO_FIELDS,
  };
  const from = before ?? EMPTY;
  const to = after ?? EMPTY;
  diffValue(ctx, ['spec'], 'spec', from.spec, to.spec);
  diffValue(ctx, ['metadata', 'labels'], 'metadata.labels', from.labels, to.labels);
  diffValue(ctx, ['metadata', 'annotations'], 'metadata.annotations', from.annotations, to.annotations);
  return ctx.out;
}

function isUnchanged(before: DiffableResource, after: DiffableResource): boolean {
  return isEqualValue(before.spec, after.spec) && isEqualValue(before.labels, after.labels) && isEqualValue(before.annotations, after.annotations);
}

function appendSegment(text: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${text}[${segment}]`;
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) return text === '' ? segment : `${text}.${segment}`;
  return `${text}[${JSON.stringify(segment)}]`;
}

/**
 * Diffs one value at `path` (whose text is `pathText`). `path` is a stack shared by the whole
 * walk and restored before returning.
 */
function diffValue(ctx: DiffContext, path: PathSegment[], pathText: string, before: unknown, after: unknown): void {
  if (before === after) return;
  if (isRecord(before) && isRecord(after)) {
    if (isEqualRecord(before, after)) return; // the common case; cheaper than sorting keys
    for (const key of unionOfKeys(before, after)) {
      path.push(key);
      diffValue(ctx, path, appendSegment(pathText, key), before[key], after[key]);
      path.pop();
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    diffItems(ctx, path, pathText, before, after);
    return;
  }
  // One side absent and the other a non-empty container: list its leaves one by one.
  if (before === undefined && isNonEmptyContainer(after)) {
    diffValue(ctx, path, pathText, Array.isArray(after) ? [] : {}, after);
    return;
  }
  if (after === undefined && isNonEmptyContainer(before)) {
    diffValue(ctx, path, pathText, before, Array.isArray(before) ? [] : {});
    return;
  }
  // Differing scalars, or shapes that differ (a list where a map was): one change of the whole value.
  addLeaf(ctx, path, pathText, before, after);
}

function diffItems(ctx: DiffContext, path: PathSegment[], pathText: string, before: readonly unknown[], after: readonly unknown[]): void {
  const length = Math.max(before.length, after.length);
  for (let index = 0; index < length; index++) {
    path.push(index);
    diffValue(ctx, path, `${pathText}[${index}]`, index < before.length ? before[index] : undefined, index < after.length ? after[index] : undefined);
    path.pop();
  }
}

function addLeaf(ctx: DiffContext, path: readonly PathSegment[], pathText: string, before: unknown, after: unknown): void {
  const holdsContainer = isContainer(before) || isContainer(after);
  const sensitive = ctx.sensitivePatterns.length > 0 && isSensitivePath(path, ctx.sensitivePatterns, holdsContainer);
  const field = path[0] === 'spec' ? path[1] : undefined;
  ctx.out.push({
    path: pathText,
    before: sensitive && before !== undefined ? SENSITIVE_MASK : before,
    after: sensitive && after !== undefined ? SENSITIVE_MASK : after,
    forcesReplacement: typeof field === 'string' && ctx.replacementFields.has(field),
    sensitive,
  });
}

/**
 * A path is sensitive when a pattern matches it or one of its ancestors; a container value is
 * also sensitive when a pattern could match something inside it.
 */
function isSensitivePath(path: readonly PathSegment[], patterns: readonly (readonly string[])[], holdsContainer: boolean): boolean {
  return patterns.some((pattern) => {
    const shared = Math.min(pattern.length, path.length);
    for (let i = 0; i < shared; i++) {
      if (pattern[i] !== '*' && pattern[i] !== String(path[i])) return false;
    }
    return path.length >= pattern.length || holdsContainer;
  });
}

function sensitivePatternsOf(kind: Kind): readonly (readonly string[])[] {
  let patterns = patternsByKind.get(kind);
  if (patterns === undefined) {
    patterns = SENSITIVE_PATHS[kind].map((p) => ['spec', ...p.split('.')]);
    patternsByKind.set(kind, patterns);
  }
  return patterns;
}

function replacementFieldsOf(kind: Kind): ReadonlySet<string> {
  let fields = replacementByKind.get(kind);
  if (fields === undefined) {
    fields = new Set(REPLACEMENT_FIELDS[kind]);
    replacementByKind.set(kind, fields);
  }
  return fields;
}

/** Deep equality of JSON values (an object key set to undefined counts as present). */
function isEqualValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!isEqualValue(a[i], b[i])) return false;
    return true;
  }
  return !Array.isArray(b) && isEqualRecord(a as Record<string, unknown>, b as Record<string, unknown>);
}

function isEqualRecord(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!isEqualValue(a[key], b[key]) || !Object.hasOwn(b, key)) return false;
  }
  return true;
}

/** The keys of both objects, sorted, each once. */
function unionOfKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = Object.keys(a);
  for (const key of Object.keys(b)) {
    if (!Object.hasOwn(a, key)) keys.push(key);
  }
  return keys.sort();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function isNonEmptyContainer(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return isRecord(value) && Object.keys(value).length > 0;
}
