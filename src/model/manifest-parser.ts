/**
 * @module Reads the manifests of one YAML text (a file, stdin, or a posted body): every document
 * is parsed with positions kept, checked against its kind's schema, and either returned as a
 * LocatedManifest or reported as ManifestErrors pointing at the line and column to fix.
 */
import type { Document, LineCounter, YAMLError } from 'yaml';
import { isKind, type Kind } from './kinds.js';
import { compareErrorPositions, wholeFileError, type ManifestError } from './manifest-error.js';
import { DEFAULT_MANIFEST_LIMITS, formatByteSize, type ManifestLimits } from './manifest-limits.js';
import { DEFAULT_NAMESPACE, type AnyManifest } from './resource.js';
import { validateManifest } from './schema-validator.js';
import { findKeyProblems, scanYamlText, type YamlTextScan } from './yaml-guards.js';
import { locateOffset, positionOf, type SourcePosition } from './yaml-positions.js';
import { yaml } from './yaml-library.js';

export type { SourcePosition } from './yaml-positions.js';

/** A valid manifest and where it was written, so later stages can point at its fields. */
export interface LocatedManifest {
  /** As the user wrote it (no schema defaults), except `metadata.namespace`, filled with `default`, and without `status`. */
  manifest: AnyManifest;
  file: string;
  /** Where the document's content starts (1-based). */
  line: number;
  column: number;
  /** 0-based index of the document within its file. */
  document: number;
  /** Where the field at a JSON pointer is written; a missing field gives the mapping that lacks it. */
  locate(pointer: string): SourcePosition;
}

/** What one text holds: its valid manifests and the errors of the rest, in source order. */
export interface ParseResult {
  manifests: LocatedManifest[];
  /** At most `maxErrorsPerFile` of them; the count of the rest is in `omittedErrors`. */
  errors: ManifestError[];
  omittedErrors: number;
}

/** What a document says it is, as far as that can be told: used to name it in errors. */
interface DocumentIdentity {
  kind?: Kind;
  name?: string;
  namespace?: string;
}

interface TextContext {
  file: string;
  lineCounter: LineCounter;
  limits: ManifestLimits;
}

/** Printable and short: safe to show as a resource's name on one line of output. */
const SHOWABLE_NAME = /^[\x21-\x7e]{1,253}$/;

function identityOf(value: unknown): DocumentIdentity {
  if (typeof value !== 'object' || value === null) return {};
  const { kind, metadata } = value as { kind?: unknown; metadata?: unknown };
  const identity: DocumentIdentity = {};
  if (isKind(kind)) identity.kind = kind;
  if (typeof metadata === 'object' && metadata !== null) {
    const { name, namespace } = metadata as { name?: unknown; namespace?: unknown };
    if (typeof name === 'string' && SHOWABLE_NAME.test(name)) identity.name = name;
    if (typeof namespace === 'string' && SHOWABLE_NAME.test(namespace) && namespace !== DEFAULT_NAMESPACE) identity.namespace = namespace;
  }
  return identity;
}

function errorAt(context: TextContext, document: number, offset: number, pointer: string, message: string, identity: DocumentIdentity): ManifestError {
  const { line, column } = positionOf(context.lineCounter, offset);
  return { file: context.file, line, column, document, pointer, ...identity, message };
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function yamlErrorMessage(error: YAMLError): string {
  switch (error.code) {
    case 'TAB_AS_INDENT':
      return 'invalid YAML: tabs are not allowed as indentation; indent with spaces';
    case 'TAG_RESOLVE_FAILED': {
      const tag = /Unresolved tag: (.*)$/.exec(error.message)?.[1]?.replace('tag:yaml.org,2002:', '!!') ?? 'tag';
      return `unsupported YAML tag ${tag}; only plain strings, numbers, booleans, null, lists and mappings are allowed`;
    }
    case 'RESOURCE_EXHAUSTION':
      return 'invalid YAML: nested too deeply to read';
    default:
      return `invalid YAML: ${lowerFirst(error.message)}`;
  }
}

/** YAML errors and warnings (unknown tags, directives) and unusable keys (repeated, or collections): any of them makes the document unusable. */
function yamlProblems(context: TextContext, doc: Document, index: number): ManifestError[] {
  const problems = [...doc.errors, ...doc.warnings].map((e) => errorAt(context, index, e.pos[0], '', yamlErrorMessage(e), {}));
  for (const key of findKeyProblems(doc)) problems.push(errorAt(context, index, key.offset, '', key.message, {}));
  return problems;
}

/** The text without the byte-order mark it may start with; positions are counted after it. */
export function withoutByteOrderMark(source: string): string {
  return source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
}

/** Every document of `text`, parsed as manifests are: YAML 1.2 core schema, positions kept, keys checked separately. May throw. */
export function parseYamlDocuments(text: string, lineCounter: LineCounter): Document[] {
  const options = { lineCounter, prettyErrors: false, logLevel: 'error', uniqueKeys: false, schema: 'core', resolveKnownTags: false, merge: false } as const;
  return [...yaml().parseAllDocuments(text, options)];
}

function isEmptyDocument(doc: Document): boolean {
  return doc.contents === null || (yaml().isScalar(doc.contents) && doc.contents.value === null);
}

function toPlainValue(context: TextContext, doc: Document): { value: unknown } | { problem: string } {
  try {
    return { value: doc.toJS({ maxAliasCount: context.limits.maxAliasCount }) as unknown };
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    if (message.startsWith('Excessive alias count')) {
      return { problem: `too many YAML aliases (possible alias bomb); at most ${context.limits.maxAliasCount} expansions are allowed per document` };
    }
    return { problem: `invalid YAML: ${lowerFirst(message)}` };
  }
}

/** The manifest as returned: namespace filled in, `status` (cairn's to write) dropped, nothing else added. */
export function normalizeManifest(manifest: AnyManifest): AnyManifest {
  const normalized: AnyManifest & { status?: unknown } = {
    ...manifest,
    metadata: { ...manifest.metadata, namespace: manifest.metadata.namespace ?? DEFAULT_NAMESPACE },
  };
  delete normalized.status;
  return normalized;
}

function readDocument(context: TextContext, doc: Document, index: number): LocatedManifest | ManifestError[] {
  const start = locateOffset(doc, '');
  const problems = yamlProblems(context, doc, index);
  if (problems.length === 0 && isEmptyDocument(doc)) return [];
  const plain = toPlainValue(context, doc);
  if ('problem' in plain) return [...problems, errorAt(context, index, start, '', plain.problem, {})];
  const identity = identityOf(plain.value);
  if (problems.length > 0) return problems.map((problem) => ({ ...problem, ...identity }));
  const validation = validateManifest(plain.value);
  if (!validation.valid) {
    return validation.issues.map((issue) =>
      errorAt(context, index, locateOffset(doc, issue.pointer, issue.locateAt ?? 'value'), issue.pointer, issue.message, identity),
    );
  }
  const { line, column } = positionOf(context.lineCounter, start);
  const lineCounter = context.lineCounter;
  return {
    manifest: normalizeManifest(validation.manifest),
    file: context.file,
    line,
    column,
    document: index,
    locate: (pointer: string): SourcePosition => positionOf(lineCounter, locateOffset(doc, pointer)),
  };
}

/** What the checks before parsing found: the text's scan, or why it is refused. */
export type TextGuard = { refusal: ManifestError } | { scan: YamlTextScan };

/** Refuses, before parsing, a text too large, with too many documents, or nested too deeply. */
export function guardManifestText(text: string, file: string, limits: ManifestLimits): TextGuard {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxFileBytes) {
    return { refusal: wholeFileError(file, `file is ${formatByteSize(bytes)}; the limit is ${formatByteSize(limits.maxFileBytes)} per file (split it into several files)`) };
  }
  const scan = scanYamlText(text);
  if (scan.documentMarkers + 1 > limits.maxDocumentsPerFile) {
    return { refusal: wholeFileError(file, `file has more than ${limits.maxDocumentsPerFile} YAML documents; the limit is ${limits.maxDocumentsPerFile} per file`) };
  }
  if (scan.maxFlowDepth > limits.maxNestingDepth) {
    return { refusal: wholeFileError(file, `YAML nested more than ${limits.maxNestingDepth} levels deep; refusing to read it`) };
  }
  return { scan };
}

/**
 * Parses every YAML document of `text` (named `file` in errors) into manifests. Empty documents
 * are skipped; all problems are reported, not just the first. Never throws on bad input.
 */
export function parseManifestText(source: string, file: string, limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS): ParseResult {
  const text = withoutByteOrderMark(source);
  const guard = guardManifestText(text, file, limits);
  if ('refusal' in guard) return { manifests: [], errors: [guard.refusal], omittedErrors: 0 };
  const lineCounter = new (yaml().LineCounter)();
  let documents: Document[];
  try {
    documents = parseYamlDocuments(text, lineCounter);
  } catch (cause) {
    return { manifests: [], errors: [wholeFileError(file, `could not read YAML: ${cause instanceof Error ? cause.message : String(cause)}`)], omittedErrors: 0 };
  }
  if (documents.length > limits.maxDocumentsPerFile) {
    const message = `file has more than ${limits.maxDocumentsPerFile} YAML documents; the limit is ${limits.maxDocumentsPerFile} per file`;
    return { manifests: [], errors: [wholeFileError(file, message)], omittedErrors: 0 };
  }
  const context: TextContext = { file, lineCounter, limits };
  const manifests: LocatedManifest[] = [];
  const errors: ManifestError[] = [];
  documents.forEach((doc, index) => {
    const read = readDocument(context, doc, index);
    if (Array.isArray(read)) errors.push(...read);
    else manifests.push(read);
  });
  errors.sort(compareErrorPositions);
  const shown = errors.slice(0, limits.maxErrorsPerFile);
  return { manifests, errors: shown, omittedErrors: errors.length - shown.length };
}
