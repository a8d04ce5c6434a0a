/**
 * @module Kubernetes label selectors (`a=b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`)
 * and field selectors (`metadata.name`, `metadata.namespace`, or the fields a route names, with
 * `=`, `==` or `!=`). A selector that cannot be parsed is a 400 naming what is wrong.
 */
import { MalformedRequestError } from '../../model/errors.js';

export type LabelMatcher = (labels: Record<string, string>) => boolean;

/** Splits on commas outside parentheses. */
function requirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const KEY = String.raw`[A-Za-z0-9./_-]+`;

function parseRequirement(text: string): LabelMatcher {
  let m = new RegExp(String.raw`^(${KEY})\s*(notin|in)\s*\(([^)]*)\)$`).exec(text);
  if (m) {
    const [, key = '', op, list = ''] = m;
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in' ? (l) => l[key] !== undefined && values.has(l[key]) : (l) => l[key] === undefined || !values.has(l[key]);
  }
  m = new RegExp(String.raw`^(${KEY})\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$`).exec(text);
  if (m) {
    const [, key = '', op, value = ''] = m;
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  m = new RegExp(String.raw`^(!?)(${KEY})$`).exec(text);
  if (m) {
    const [, not, key = ''] = m;
    return not ? (l) => l[key] === undefined : (l) => l[key] !== undefined;
  }
  throw new MalformedRequestError(`unable to parse requirement "${text}" of labelSelector`);
}

/** A matcher for `labelSelector`; everything matches when it is absent or empty. */
export function parseLabelSelector(text: string | undefined): LabelMatcher {
  if (text === undefined || text.trim() === '') return () => true;
  const matchers = requirements(text).map(parseRequirement);
  return (labels) => matchers.every((m) => m(labels));
}

export interface FieldSelection {
  /** `metadata.name=x`: only that name (a narrower query). */
  name?: string;
  namespace?: string;
  /** Every `=` requirement, by field: a caller may narrow its query with them too. */
  equals: Record<string, string>;
  /** Whether an object's fields (by their selector names, e.g. `metadata.name`) meet every requirement. */
  matches: (fields: Record<string, string | undefined>) => boolean;
}

/** Parses `fieldSelector` on the `supported` fields (by default `metadata.name` and `metadata.namespace`, as kubectl uses them). */
export function parseFieldSelector(text: string | undefined, supported: readonly string[] = ['metadata.name', 'metadata.namespace']): FieldSelection {
  const selection: FieldSelection = { equals: {}, matches: () => true };
  if (text === undefined || text.trim() === '') return selection;
  const tests: Array<(fields: Record<string, string | undefined>) => boolean> = [];
  for (const part of requirements(text)) {
    const m = /^([A-Za-z.]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw new MalformedRequestError(`invalid selector: "${part}"; expected field=value or field!=value`);
    const [, field = '', op, value = ''] = m;
    if (!supported.includes(field)) throw new MalformedRequestError(`field label not supported: ${field} (supported: ${supported.join(', ')})`);
    if (op === '!=') {
      tests.push((fields) => fields[field] !== value);
      continue;
    }
    tests.push((fields) => fields[field] === value);
    selection.equals[field] = value;
    if (field === 'metadata.name') selection.name = value;
    else if (field === 'metadata.namespace') selection.namespace = value;
  }
  selection.matches = (fields) => tests.every((t) => t(fields));
  return selection;
}
