/**
 * @module Reads the documents of a YAML text with js-yaml, several times faster than `yaml`, but
 * only when it can vouch that `yaml` (as the manifest parser sets it up) would read the same
 * values, in the same documents, without a complaint. What it cannot vouch for it declines.
 */
import { loadAll, type EventType, type LoadOptions, type State } from 'js-yaml';
import type { ManifestLimits } from './manifest-limits.js';
import { FAST_CORE_SCHEMA } from './yaml-fast-schema.js';
import { screenForFastPath } from './yaml-fast-screen.js';
import { aliasExpansionBound } from './yaml-guards.js';

/** One document as plain data, and the offset where its content starts (as `yaml` places it). */
export interface FastDocument {
  value: unknown;
  offset: number;
}

/**
 * What the fast reader made of a text: its documents; or `declined` when the text uses something
 * it does not vouch for (the text may well be valid); or `invalid` when js-yaml refused it.
 */
export type FastYamlRead = { documents: FastDocument[] } | { declined: string } | { invalid: string };

/** The fields of js-yaml's state read when a node closes (its types leave out `anchor`). */
interface ClosedNode {
  anchor: string | null;
  kind: string | null;
  result: unknown;
}

/** Thrown from the listener to stop js-yaml at the first thing the fast path declines. */
class Declined extends Error {}

const AMPERSAND = 38;
const VERTICAL_BAR = 124;
const GREATER_THAN = 62;
const CLOSING_BRACKET = 93;
const CLOSING_BRACE = 125;
const HASH = 35;
const SPACE = 32;

/** Whether a line between `start` and `end` holds only a comment. */
function hasCommentLine(text: string, start: number, end: number): boolean {
  for (let newline = text.indexOf('\n', start); newline !== -1 && newline < end; newline = text.indexOf('\n', newline + 1)) {
    let i = newline + 1;
    while (text.charCodeAt(i) === SPACE) i++;
    if (text.charCodeAt(i) === HASH) return true;
  }
  return false;
}

/**
 * A js-yaml listener that notes where each document's content starts, and declines (throws):
 * - a document starting with an anchor (yaml places its start after it) or a block scalar
 *   (indented differently at the top level);
 * - a flow collection over several lines with a comment line inside (yaml refuses some), and a
 *   flow mapping with an entry without a value (`{a, b}`: its key may be a list, mapping, alias
 *   or null, which yaml refuses or keys differently; real manifests hold no null values);
 * - an anchor on a null or empty value (js-yaml cannot tell an alias to it from an empty value),
 *   or defined twice in a document (the two disagree on which one an alias means);
 * - an alias to anything but a node read to its end before it (an alias inside its own anchor,
 *   or to what js-yaml read on a path it then abandoned);
 * - more aliases in a document than can stay within `maxAliasCount`.
 */
function watchDocuments(limits: ManifestLimits): { offsets: number[]; listener: NonNullable<LoadOptions['listener']> } {
  const offsets: number[] = [];
  // Where each open node started (position and line), by depth.
  const openedAt: number[] = [];
  const openedOnLine: number[] = [];
  let depth = 0;
  let aliases = 0;
  let anchors = new Set<string>();
  let anchored = new Set<unknown>();

  const startDocument = (state: State): void => {
    const first = state.input.charCodeAt(state.position);
    if (first === AMPERSAND || first === VERTICAL_BAR || first === GREATER_THAN) throw new Declined('a document that starts with an anchor or a block scalar');
    offsets.push(state.position);
    aliases = 0;
    anchors = new Set();
    anchored = new Set();
  };

  const closeCollection = (state: State, kind: string, result: unknown): void => {
    const closing = state.input.charCodeAt(state.position - 1);
    if (closing !== CLOSING_BRACKET && closing !== CLOSING_BRACE) return;
    if (state.line !== openedOnLine[depth] && hasCommentLine(state.input, openedAt[depth] ?? 0, state.position)) {
      throw new Declined('a comment line inside a flow collection');
    }
    if (kind === 'mapping' && Object.values(result as object).includes(null)) throw new Declined('a flow mapping with an entry without a value');
  };

  const listener = (event: EventType, state: State): void => {
    if (event === 'open') {
      if (depth === 0) startDocument(state);
      openedAt[depth] = state.position;
      openedOnLine[depth] = state.line;
      depth++;
      return;
    }
    depth--;
    const { anchor, kind, result } = state as unknown as ClosedNode;
    if (kind === 'mapping' || kind === 'sequence') closeCollection(state, kind, result);
    if (anchor !== null) {
      if (result === null || anchors.has(anchor)) throw new Declined('an anchor on an empty value, or defined twice');
      anchors.add(anchor);
      anchored.add(result);
    } else if (kind === null && result !== null) {
      if (!anchored.has(result)) throw new Declined('an alias to a node not read to its end');
      aliases++;
      if (aliasExpansionBound(aliases) > limits.maxAliasCount) throw new Declined('too many aliases');
    }
  };
  return { offsets, listener };
}

/**
 * Every document of `text` (a byte-order mark already removed) as plain data, with where its
 * content starts. Empty documents are included (as null), so indexes match `yaml`'s.
 */
export function readYamlFast(text: string, limits: ManifestLimits): FastYamlRead {
  const screened = screenForFastPath(text);
  if (screened !== undefined) return { declined: screened };
  const { offsets, listener } = watchDocuments(limits);
  let values: unknown[];
  try {
    const options: LoadOptions & { maxDepth: number } = {
      schema: FAST_CORE_SCHEMA,
      json: false,
      listener,
      // js-yaml only warns where yaml refuses, e.g. for a quoted scalar or flow collection continued less indented than its parent.
      onWarning: (warning) => {
        throw new Declined(`js-yaml warns: ${warning.reason}`);
      },
      // js-yaml counts block nesting too; a manifest nested this deep goes to yaml.
      maxDepth: limits.maxNestingDepth,
    };
    values = loadAll(text, null, options);
  } catch (cause) {
    if (cause instanceof Declined) return { declined: cause.message };
    return { invalid: cause instanceof Error ? cause.message : String(cause) };
  }
  if (values.length !== offsets.length) return { declined: 'documents not told apart' };
  return { documents: values.map((value, i) => ({ value, offset: offsets[i] ?? -1 })) };
}
