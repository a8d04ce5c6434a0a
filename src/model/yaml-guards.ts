/**
 * @module Cheap checks that keep hostile or runaway YAML from costing much: a linear pre-scan of
 * the raw text (document count, flow nesting depth, aliases) before the parser runs, and a linear
 * check of keys on the parsed tree (yaml's own `uniqueKeys` is quadratic in map size).
 */
import type { Document, Node } from 'yaml';
import { yaml } from './yaml-library.js';

export interface YamlTextScan {
  /** Lines that start a document with `---`; a file holds at most this many plus one documents. */
  documentMarkers: number;
  /** The deepest nesting of flow collections (`[`/`{`) outside quotes and comments. */
  maxFlowDepth: number;
  /** The most aliases (`*name` outside quotes and comments) between two `---` lines. */
  maxAliasesPerDocument: number;
}

const NEWLINE = 10;
const HASH = 35;
const BACKSLASH = 92;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === NEWLINE || Number.isNaN(code);
}

/** Whether `*` starts an alias: right after a flow indicator, or after blanks that follow `:`, `-`, `?` or the indentation. */
function opensAlias(previous: number, lastNonBlank: number): boolean {
  if (previous === 91 || previous === 123 || previous === 44) return true;
  if (!isBlank(previous)) return false;
  return lastNonBlank === NEWLINE || lastNonBlank === 58 || lastNonBlank === 45 || lastNonBlank === 63 || lastNonBlank === 91 || lastNonBlank === 123 || lastNonBlank === 44;
}

/** Characters after which a quote opens a quoted scalar (rather than being part of a word like don't). */
function opensQuote(previous: number): boolean {
  return isBlank(previous) || previous === 91 || previous === 123 || previous === 44 || previous === 58 || previous === 45;
}

/**
 * One pass over the text. Approximate by design — block scalars are read as plain text — but it
 * never counts brackets inside quotes or comments, so a real manifest cannot trip its limits.
 */
export function scanYamlText(text: string): YamlTextScan {
  let documentMarkers = 0;
  let depth = 0;
  let maxFlowDepth = 0;
  let aliases = 0;
  let maxAliasesPerDocument = 0;
  let quote = 0;
  let inComment = false;
  let previous = NEWLINE;
  let lastNonBlank = NEWLINE;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === NEWLINE) {
      inComment = false;
      previous = code;
      lastNonBlank = code;
      continue;
    }
    if (previous === NEWLINE && code === 45 && text.startsWith('---', i) && isBlank(text.charCodeAt(i + 3))) {
      documentMarkers++;
      depth = 0;
      quote = 0;
      aliases = 0;
    }
    if (inComment) continue;
    if (quote !== 0) {
      if (quote === DOUBLE_QUOTE && code === BACKSLASH) i++;
      else if (code === quote) quote = 0;
    } else if (code === HASH && isBlank(previous)) {
      inComment = true;
    } else if ((code === DOUBLE_QUOTE || code === SINGLE_QUOTE) && opensQuote(previous)) {
      quote = code;
    } else if (code === 91 || code === 123) {
      depth++;
      if (depth > maxFlowDepth) maxFlowDepth = depth;
    } else if ((code === 93 || code === 125) && depth > 0) {
      depth--;
    } else if (code === 42 && opensAlias(previous, lastNonBlank)) {
      aliases++;
      if (aliases > maxAliasesPerDocument) maxAliasesPerDocument = aliases;
    }
    previous = code;
    if (!isBlank(code)) lastNonBlank = code;
  }
  return { documentMarkers, maxFlowDepth, maxAliasesPerDocument };
}

/**
 * The most yaml can count against `maxAliasCount` for a document with `aliases` aliases. yaml
 * counts, for each anchor, its uses plus one (the anchor itself) times the most counted inside
 * it, so the worst is a chain of anchors each used once inside the next: 2 · 2 · … = 2^aliases
 * (six aliases: 64). Within the limit, yaml cannot refuse the document for its aliases, and
 * expanding them costs little.
 */
export function aliasExpansionBound(aliases: number): number {
  return aliases <= 0 ? 0 : 2 ** aliases;
}

/** A key that cannot stand in a manifest: repeated in its mapping, or a list or mapping used as a key. */
export interface KeyProblem {
  offset: number;
  message: string;
}

/** Every problem key of every mapping in the document, in one walk (aliases are not followed). */
export function findKeyProblems(doc: Document): KeyProblem[] {
  const { isCollection, isMap, isPair, isScalar, isSeq } = yaml();
  const problems: KeyProblem[] = [];
  const pending: unknown[] = [doc.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = pair.key as Node | null;
        if (isScalar(key)) {
          const text = String(key.value);
          if (seen.has(text)) problems.push({ offset: key.range?.[0] ?? 0, message: `duplicate key ${JSON.stringify(text)}` });
          seen.add(text);
        } else if (isCollection(key)) {
          const what = isMap(key) ? 'a mapping' : 'a list';
          problems.push({ offset: key.range?.[0] ?? 0, message: `keys must be plain strings, not ${what}` });
        }
        pending.push(pair.key, pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(isPair(item) ? item.value : item);
    }
  }
  return problems.sort((a, b) => a.offset - b.offset);
}
