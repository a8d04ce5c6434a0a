/**
 * @module Reads the documents of a YAML text with js-yaml, several times faster than `yaml`, but
 * only when it can vouch that `yaml` (as the manifest parser sets it up) would read the same
 * values without a complaint. Anything it cannot vouch for is declined, never guessed at.
 */
import { EVENT_ID, constructFromEvents, parseEvents, type Event } from 'js-yaml';
import type { ManifestLimits } from './manifest-limits.js';
import { FAST_CORE_SCHEMA } from './yaml-fast-schema.js';
import { aliasExpansionBound } from './yaml-guards.js';

/** One document as plain data, and the offset where its content starts (as `yaml` places it). */
export interface FastDocument {
  value: unknown;
  offset: number;
}

/**
 * Characters the two parsers treat differently, or that `yaml` refuses where js-yaml does not:
 * tabs, control characters, byte-order marks past the start, non-ASCII line breaks, a CR not
 * followed by LF. A text holding any of them goes to `yaml` alone.
 */
const UNVOUCHED_CHARACTERS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\t\ufeff\u2028\u2029]|\r(?!\n)/;

/** A directive (`%YAML`, `%TAG`, unknown ones) at the start of a line. */
const DIRECTIVE = /^%/m;

/** Keys longer than this may be past yaml's 1024-character limit for implicit keys (counted with quotes and spaces). */
const LONGEST_KEY = 1000;

const NO_RANGE = -1;

/** What the pass over the events keeps per open collection. */
interface Frame {
  /** Its anchor, set complete when the collection closes: an alias to it before that is recursive. */
  anchor: string | undefined;
  isMapping: boolean;
  /** In a mapping, whether the next node is a key. */
  atKey: boolean;
}

/**
 * Whether the anchor or alias name spanning `start`–`end` is read alike by both parsers: `yaml`
 * warns about names ending in `:`, and wants an anchor followed by white space.
 */
function plainName(text: string, start: number, end: number, isAnchor: boolean): boolean {
  if (text.charCodeAt(end - 1) === 58) return false;
  if (!isAnchor || end >= text.length) return true;
  const next = text.charCodeAt(end);
  return next === 32 || next === 10 || next === 13;
}

/**
 * Checks the event stream for what the fast path does not vouch for — tags, directives, anchors
 * and aliases `yaml` reads differently or refuses, recursive aliases, more aliases than can stay
 * within `maxAliasCount`, long keys, an anchor at the very start of a document — and returns
 * where each document's content starts, or undefined.
 */
function documentOffsets(text: string, events: readonly Event[], limits: ManifestLimits): number[] | undefined {
  const offsets: number[] = [];
  const frames: Frame[] = [];
  let anchors = new Map<string, boolean>();
  let aliases = 0;
  let rootPending = false;
  let firstKeyPending = false;
  for (const event of events) {
    if (event.type === EVENT_ID.POP) {
      const frame = frames.pop();
      if (frame?.anchor !== undefined) anchors.set(frame.anchor, true);
      continue;
    }
    if (event.type === EVENT_ID.DOCUMENT) {
      if (event.directives.length > 0) return undefined;
      frames.push({ anchor: undefined, isMapping: false, atKey: false });
      anchors = new Map();
      aliases = 0;
      rootPending = true;
      continue;
    }
    const parent = frames[frames.length - 1];
    const isKey = parent !== undefined && parent.isMapping && parent.atKey;
    if (parent?.isMapping) parent.atKey = !parent.atKey;
    if (firstKeyPending && event.anchorStart !== NO_RANGE) return undefined;
    firstKeyPending = false;
    if (event.type === EVENT_ID.ALIAS) {
      if (!plainName(text, event.anchorStart, event.anchorEnd, false)) return undefined;
      if (anchors.get(text.slice(event.anchorStart, event.anchorEnd)) !== true) return undefined;
      aliases++;
      if (aliasExpansionBound(aliases) > limits.maxAliasCount) return undefined;
      continue;
    }
    if (event.tagStart !== NO_RANGE) return undefined;
    const anchor = event.anchorStart === NO_RANGE ? undefined : text.slice(event.anchorStart, event.anchorEnd);
    if (anchor !== undefined && !plainName(text, event.anchorStart, event.anchorEnd, true)) return undefined;
    if (event.type === EVENT_ID.SCALAR) {
      if (isKey && event.valueEnd - event.valueStart > LONGEST_KEY) return undefined;
      if (anchor !== undefined) anchors.set(anchor, true);
      if (rootPending) offsets.push(event.valueStart);
    } else {
      if (anchor !== undefined) anchors.set(anchor, false);
      frames.push({ anchor, isMapping: event.type === EVENT_ID.MAPPING, atKey: true });
      if (rootPending) {
        if (anchor !== undefined) return undefined;
        offsets.push(event.start);
        firstKeyPending = true;
      }
    }
    rootPending = false;
  }
  return offsets;
}

/**
 * Every document of `text` (a byte-order mark already removed) as plain data, with where its
 * content starts; undefined when js-yaml fails or the text uses anything the fast path does not
 * vouch for. Empty documents are included (as null), so indexes match `yaml`'s.
 */
export function readYamlFast(text: string, limits: ManifestLimits): FastDocument[] | undefined {
  if (UNVOUCHED_CHARACTERS.test(text) || DIRECTIVE.test(text)) return undefined;
  try {
    const events = parseEvents(text, { maxDepth: limits.maxNestingDepth });
    const offsets = documentOffsets(text, events, limits);
    if (offsets === undefined || offsets.length > limits.maxDocumentsPerFile) return undefined;
    const values = constructFromEvents(events, { source: text, schema: FAST_CORE_SCHEMA, json: false, maxAliases: -1 });
    if (values.length !== offsets.length) return undefined;
    return values.map((value, index) => ({ value, offset: offsets[index] ?? 0 }));
  } catch {
    return undefined;
  }
}
