/**
 * @module Checks that hold across a set of manifests rather than within one: no two resources of
 * a kind share a name in a namespace, every reference (a server's provider, an app's
 * databases, …) names a resource that exists, and a server gives the fields its provider's
 * vendor takes (when that provider is in the set: a stored one is checked by the reconciler).
 */
import type { Kind } from './kinds.js';
import type { ManifestError } from './manifest-error.js';
import type { LocatedManifest } from './manifest-parser.js';
import { referencesOf } from './references.js';
import { DEFAULT_NAMESPACE, resourceKey } from './resource.js';
import { serverFieldIssues } from './server-vendor-fields.js';
import type { ProviderSpec } from './generated/kinds.js';

/** Whether a resource exists outside the manifests being checked (e.g. already stored). */
export type KnownResource = (kind: Kind, namespace: string, name: string) => boolean;

function namespaceOf(located: LocatedManifest): string {
  return located.manifest.metadata.namespace ?? DEFAULT_NAMESPACE;
}

function keyOf(located: LocatedManifest): string {
  return resourceKey({ kind: located.manifest.kind, namespace: namespaceOf(located), name: located.manifest.metadata.name });
}

/** The error fields that name the manifest an error is about. */
function subjectOf(located: LocatedManifest): Pick<ManifestError, 'file' | 'document' | 'kind' | 'name' | 'namespace'> {
  const namespace = namespaceOf(located);
  return {
    file: located.file,
    document: located.document,
    kind: located.manifest.kind,
    name: located.manifest.metadata.name,
    ...(namespace === DEFAULT_NAMESPACE ? {} : { namespace }),
  };
}

/** A second (third, …) manifest of the same kind, namespace and name, naming where the first is. */
export function checkDuplicateNames(manifests: readonly LocatedManifest[]): ManifestError[] {
  const first = new Map<string, LocatedManifest>();
  const errors: ManifestError[] = [];
  for (const located of manifests) {
    const key = keyOf(located);
    const original = first.get(key);
    if (original === undefined) {
      first.set(key, located);
      continue;
    }
    const { kind, metadata } = located.manifest;
    errors.push({
      ...subjectOf(located),
      line: located.line,
      column: located.column,
      pointer: '',
      message: `duplicate ${kind} ${JSON.stringify(metadata.name)} in namespace ${namespaceOf(located)} (first defined at ${original.file}:${original.line}:${original.column})`,
    });
  }
  return errors;
}

/** A reference of `located`, at `pointer`, to a resource that does not exist in `namespace`. */
interface MissingReference {
  located: LocatedManifest;
  namespace: string;
  pointer: string;
  target: Kind;
  name: string;
}

function findMissingReferences(manifests: readonly LocatedManifest[], known: KnownResource | undefined): MissingReference[] {
  const loaded = new Set(manifests.map(keyOf));
  const missing: MissingReference[] = [];
  for (const located of manifests) {
    const namespace = namespaceOf(located);
    for (const reference of referencesOf(located.manifest.kind, located.manifest.spec)) {
      const exists =
        loaded.has(resourceKey({ kind: reference.target, namespace, name: reference.name })) ||
        (known?.(reference.target, namespace, reference.name) ?? false);
      if (!exists) missing.push({ located, namespace, pointer: reference.pointer, target: reference.target, name: reference.name });
    }
  }
  return missing;
}

/** Whether any reference names a resource that is neither among `manifests` nor `known`; locates nothing. */
export function hasMissingReferences(manifests: readonly LocatedManifest[], known?: KnownResource): boolean {
  return findMissingReferences(manifests, known).length > 0;
}

/**
 * References to resources that are neither among `manifests` nor `known` (by default only the
 * manifests count), each reported at the referring field: `spec.databases[0]: Database "shop-db"
 * does not exist in namespace default`.
 */
export function checkReferences(manifests: readonly LocatedManifest[], known?: KnownResource): ManifestError[] {
  return findMissingReferences(manifests, known).map(({ located, namespace, pointer, target, name }) => ({
    ...subjectOf(located),
    ...located.locate(pointer),
    pointer,
    message: `${target} ${JSON.stringify(name)} does not exist in namespace ${namespace}`,
  }));
}

interface ServerFieldProblem {
  located: LocatedManifest;
  field: string;
  message: string;
}

function findServerFieldProblems(manifests: readonly LocatedManifest[]): ServerFieldProblem[] {
  const providers = new Map<string, ProviderSpec>();
  for (const located of manifests) {
    if (located.manifest.kind === 'Provider') providers.set(`${namespaceOf(located)}/${located.manifest.metadata.name}`, located.manifest.spec);
  }
  const problems: ServerFieldProblem[] = [];
  for (const located of manifests) {
    if (located.manifest.kind !== 'Server') continue;
    const spec = located.manifest.spec;
    const provider = providers.get(`${namespaceOf(located)}/${spec.provider}`);
    if (!provider) continue;
    for (const issue of serverFieldIssues(provider.vendor, spec.provider, spec)) problems.push({ located, field: issue.field, message: issue.message });
  }
  return problems;
}

/** Whether a Server of the set gives fields its Provider's vendor (in the set) does not take or lacks some it needs; locates nothing. */
export function hasServerFieldProblems(manifests: readonly LocatedManifest[]): boolean {
  return findServerFieldProblems(manifests).length > 0;
}

/** A Server whose Provider is among `manifests` and whose vendor does not take (or needs) one of its fields, at that field. */
export function checkServerVendorFields(manifests: readonly LocatedManifest[]): ManifestError[] {
  return findServerFieldProblems(manifests).map(({ located, field, message }) => {
    const pointer = `/spec/${field}`;
    return { ...subjectOf(located), ...located.locate(pointer), pointer, message };
  });
}
