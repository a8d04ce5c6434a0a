/**
 * @module The last check of a manifest made from a REST body: the kind's own JSON Schema (the
 * same one manifests from git meet), with each problem pointed back at the body's field.
 */
import { ValidationError } from '../../model/errors.js';
import type { AnyManifest } from '../../model/resource.js';
import { validateManifest } from '../../model/schema-validator.js';
import type { Kind } from '../../model/kinds.js';
import { restPointerOf } from './rest-fields.js';

/** Where a manifest field came from in the REST body of `kind` (the table in rest-fields.ts). */
export function bodyPointer(kind: Kind | undefined, manifestPointer: string): string {
  const mapped = restPointerOf(kind, manifestPointer);
  if (mapped !== undefined) return mapped;
  if (manifestPointer.startsWith('/spec/')) return `/${manifestPointer.slice('/spec/'.length)}`;
  return manifestPointer;
}

export function checkManifest<M extends AnyManifest>(manifest: M): M {
  const result = validateManifest(manifest);
  if (result.valid) return manifest;
  const issues = result.issues.map((issue) => ({ pointer: bodyPointer(manifest.kind, issue.pointer), message: issue.message }));
  throw new ValidationError(issues.map((i) => `${i.pointer.slice(1) || 'body'}: ${i.message}`).join('; '), issues);
}
