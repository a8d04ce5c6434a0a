/**
 * @module Maps JSON pointers back to places in YAML source: the line and column of a field's
 * value, of its key, or — for a field that is missing — of the mapping that should hold it; and
 * source offsets to lines and columns, with or without yaml's LineCounter.
 */
import type { Document, LineCounter, Node } from 'yaml';
import { yaml } from './yaml-library.js';
import { pointerTokens } from './json-pointer.js';

/** A 1-based position in a source text. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** A node's start, or undefined for nodes without source (e.g. an empty value after `key:`). */
function startOf(node: Node | null | undefined): number | undefined {
  const { isScalar } = yaml();
  if (!node?.range) return undefined;
  const [start, valueEnd] = node.range;
  if (isScalar(node) && start === valueEnd) return undefined;
  return start;
}

/** The child of `node` at `token`: the key and value of a mapping entry, or a list item. */
function childAt(node: Node, token: string): { key?: Node; value: Node | null } | undefined {
  const { isMap, isScalar, isSeq } = yaml();
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      if (isScalar(key) && String(key.value) === token) return { key, value: pair.value as Node | null };
    }
    return undefined;
  }
  if (isSeq(node) && /^(0|[1-9][0-9]*)$/.test(token)) {
    const item = node.items[Number(token)] as Node | null | undefined;
    return item === undefined ? undefined : { value: item };
  }
  return undefined;
}

/**
 * The source offset of what `pointer` names in a parsed YAML document: the value's start
 * (`at: 'value'`) or its key's (`at: 'key'`). When the pointer goes further than the document
 * does, the deepest node that exists stands in for it: a missing field is reported where the
 * mapping that lacks it starts.
 */
export function locateOffset(doc: Document, pointer: string, at: 'value' | 'key' = 'value'): number {
  const { isAlias } = yaml();
  let node: Node | null = doc.contents;
  let offset = startOf(node) ?? 0;
  const tokens = pointerTokens(pointer);
  for (const [index, token] of tokens.entries()) {
    if (isAlias(node)) node = node.resolve(doc) ?? null;
    if (node === null) break;
    const child = childAt(node, token);
    if (child === undefined) break;
    const keyStart = startOf(child.key);
    const last = index === tokens.length - 1;
    if (last && at === 'key' && keyStart !== undefined) return keyStart;
    offset = startOf(child.value) ?? keyStart ?? offset;
    node = child.value;
  }
  return offset;
}

/** A source offset as a 1-based line and column. */
export function positionOf(lineCounter: LineCounter, offset: number): SourcePosition {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/**
 * Ascending source offsets of `text` as 1-based lines and columns, counted in one pass as yaml's
 * LineCounter counts them (a line ends at each `\n`).
 */
export function positionsOfOffsets(text: string, offsets: readonly number[]): SourcePosition[] {
  const positions: SourcePosition[] = [];
  let line = 1;
  let lineStart = 0;
  for (const offset of offsets) {
    for (let newline = text.indexOf('\n', lineStart); newline !== -1 && newline < offset; newline = text.indexOf('\n', lineStart)) {
      line++;
      lineStart = newline + 1;
    }
    positions.push({ line, column: offset - lineStart + 1 });
  }
  return positions;
}
