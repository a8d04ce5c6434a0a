/**
 * @module The last check of a manifest made from a REST body: the kind's own JSON Schema (the
 * same one manifests from git meet), with each problem pointed back at the body's field.
 */
import { ValidationError } from '../../model/errors.js';
import type { AnyManifest } from '../../model/resource.js';
import { validateManifest } from '../../model/schema-validator.js';

/** Manifest pointers that are not simply the snake_case of the field. */
const BODY_POINTERS: Record<string, string> = {
  '/metadata/name': '/name',
  '/metadata/labels': '/labels',
  '/spec/server': '/server_id',
  '/spec/provider': '/provider_id',
  '/spec/databases': '/database_ids',
  '/spec/backup/schedule': '/backup_schedule',
  '/spec/backup/retention': '/backup_retention',
  '/spec/healthCheck/path': '/health_check_path',
};

function snake(token: string): string {
  return token.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Where a manifest field came from in the REST body. */
export function bodyPointer(manifestPointer: string): string {
  for (const [from, to] of Object.entries(BODY_POINTERS)) {
    if (manifestPointer === from || manifestPointer.startsWith(`${from}/`)) return to + manifestPointer.slice(from.length);
  }
  if (manifestPointer.startsWith('/metadata/labels/')) return manifestPointer.replace('/metadata', '');
  if (manifestPointer.startsWith('/spec/')) {
    const [field = '', ...rest] = manifestPointer.slice('/spec/'.length).split('/');
    return ['', snake(field), ...rest].join('/');
  }
  return manifestPointer;
}

export function checkManifest<M extends AnyManifest>(manifest: M): M {
  const result = validateManifest(manifest);
  if (result.valid) return manifest;
  const issues = result.issues.map((issue) => ({ pointer: bodyPointer(issue.pointer), message: issue.message }));
  throw new ValidationError(issues.map((i) => `${i.pointer.slice(1) || 'body'}: ${i.message}`).join('; '), issues);
}
