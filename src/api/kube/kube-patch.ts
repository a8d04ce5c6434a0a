/**
 * @module The PATCH bodies Kubernetes clients send, applied to an object: JSON merge patch
 * (RFC 7386), JSON patch (RFC 6902), strategic merge patch (custom resources have no patch
 * strategies, so kube-apiserver refuses it; kubectl's fallbacks for them are merge patches, and
 * cairn takes a strategic one as a merge patch); and the applied configuration of a
 * server-side apply (YAML or JSON), which server-side-apply.ts merges.
 */
import fastJsonPatch from 'fast-json-patch';
import { parse } from 'yaml';
import { MalformedRequestError, UnsupportedMediaTypeError, ValidationError } from '../../model/errors.js';

export const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = keyof typeof PATCH_TYPES;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386: objects merge key by key, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Which patch the request's Content-Type names. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  const found = (Object.keys(PATCH_TYPES) as PatchType[]).find((k) => PATCH_TYPES[k] === type);
  if (!found) throw new UnsupportedMediaTypeError(`the body of a PATCH must be one of ${Object.values(PATCH_TYPES).join(', ')}, not ${type || 'without a Content-Type'}`);
  return found;
}

/** The applied configuration of a server-side apply, from YAML (or JSON, which is YAML). */
export function appliedConfiguration(body: unknown): Record<string, unknown> {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = parse(body);
    } catch (error) {
      throw new MalformedRequestError(`the applied configuration is not valid YAML: ${(error as Error).message}`);
    }
  }
  if (!isObject(value)) throw new MalformedRequestError('the applied configuration must be an object');
  return value;
}

/** `current` with the patch applied; a patch that does not apply is a 422 naming the operation. */
export function applyPatch(current: Record<string, unknown>, type: Exclude<PatchType, 'apply'>, body: unknown): Record<string, unknown> {
  switch (type) {
    case 'merge':
    case 'strategic':
      if (!isObject(body)) throw new MalformedRequestError('a merge patch must be a JSON object');
      return mergePatch(current, body) as Record<string, unknown>;
    case 'json': {
      if (!Array.isArray(body)) throw new MalformedRequestError('a JSON patch must be an array of operations');
      const problem = fastJsonPatch.validate(body as fastJsonPatch.Operation[], current);
      if (problem) {
        throw new ValidationError(`the JSON patch cannot be applied: ${problem.message.split('\n')[0] ?? problem.name} (operation ${problem.index ?? 0})`, [
          { pointer: `/${problem.index ?? 0}`, message: problem.name },
        ]);
      }
      try {
        return fastJsonPatch.applyPatch(structuredClone(current), body as fastJsonPatch.Operation[], false, false).newDocument;
      } catch (error) {
        throw new ValidationError(`the JSON patch cannot be applied: ${(error as Error).message.split('\n')[0] ?? ''}`);
      }
    }
  }
}
