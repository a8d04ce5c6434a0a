/**
 * @module The references a spec makes to other resources of its namespace (a server's
 * provider, a database's server, an app's server and databases), read through REFERENCE_FIELDS.
 */
import { REFERENCE_FIELDS, type Kind } from './kinds.js';

export interface Reference {
  /** Dotted field path, e.g. `spec.server`, `spec.databases[1]`. */
  path: string;
  /** JSON pointer, e.g. `/spec/databases/1`. */
  pointer: string;
  target: Kind;
  name: string;
}

export function referencesOf(kind: Kind, spec: unknown): Reference[] {
  const out: Reference[] = [];
  const fields = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>) : {};
  for (const ref of REFERENCE_FIELDS[kind]) {
    const value = fields[ref.field];
    if (typeof value === 'string') {
      out.push({ path: `spec.${ref.field}`, pointer: ref.pointer, target: ref.target, name: value });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (typeof item === 'string') {
          out.push({ path: `spec.${ref.field}[${index}]`, pointer: `${ref.pointer}/${index}`, target: ref.target, name: item });
        }
      });
    }
  }
  return out;
}

