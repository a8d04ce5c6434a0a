/**
 * @module Validates a manifest against its kind's JSON Schema (schemas/, draft 2020-12, ajv).
 * The validators are ajv standalone code generated from the schemas by `npm run gen:types`
 * (generated/validators.ts, options in validator-source.ts), so nothing is compiled at run time.
 * Reports every problem as a ShapeIssue a user can act on, and narrows a valid document to
 * AnyManifest. Schema defaults are never applied.
 */
import { closestWord } from './closest-word.js';
import { kindValidators } from './generated/validators.js';
import { KINDS, isKind, type Kind } from './kinds.js';
import type { AnyManifest } from './resource.js';
import { describeSchemaErrors, type ShapeIssue } from './schema-issue-messages.js';

export type { ShapeIssue } from './schema-issue-messages.js';

/** The outcome of validating one document: a typed manifest, or the reasons it is not one. */
export type ManifestValidation =
  | { valid: true; kind: Kind; manifest: AnyManifest }
  | { valid: false; kind: Kind | undefined; issues: ShapeIssue[] };

const KIND_LIST = KINDS.join(', ');

/** The one issue that stops a document from being validated at all: not a mapping, or no known kind. */
function documentIssue(doc: unknown): ShapeIssue | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    const what = Array.isArray(doc) ? 'a list' : doc === null ? 'empty' : `a ${typeof doc}`;
    return { pointer: '', message: `a manifest must be a mapping (apiVersion, kind, metadata, spec), not ${what}` };
  }
  const kind = (doc as { kind?: unknown }).kind;
  if (kind === undefined || kind === null) return { pointer: '', message: `kind is required; kinds are ${KIND_LIST}` };
  if (typeof kind !== 'string') return { pointer: '', message: `kind must be a string; kinds are ${KIND_LIST}` };
  if (isKind(kind)) return undefined;
  const suggestion = closestWord(kind, KINDS);
  return {
    pointer: '',
    message: `unknown kind ${JSON.stringify(kind)}; kinds are ${KIND_LIST}${suggestion ? `; did you mean ${suggestion}?` : ''}`,
  };
}

/** Validates a parsed document (YAML or JSON) as a cairn manifest of the kind it names. */
export function validateManifest(doc: unknown): ManifestValidation {
  const stopper = documentIssue(doc);
  if (stopper !== undefined) return { valid: false, kind: undefined, issues: [stopper] };
  const kind = (doc as { kind: Kind }).kind;
  const validate = kindValidators[kind];
  if (validate(doc)) return { valid: true, kind, manifest: doc };
  return { valid: false, kind, issues: describeSchemaErrors(validate.errors ?? [], kind) };
}

/** Every problem with the shape of a document; empty when it is a valid manifest. */
export function validateManifestShape(doc: unknown): ShapeIssue[] {
  const result = validateManifest(doc);
  return result.valid ? [] : result.issues;
}
