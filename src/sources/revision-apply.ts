/**
 * @module One revision of a source's manifests (a git commit, a directory's contents) applied all
 * or nothing: every file is parsed and validated first; any error, or a resource another owner
 * holds, rejects the whole revision and nothing is written. A valid revision is written in one
 * transaction: each resource carries the revision that last set it (`cairn.dev/revision`), and
 * resources whose manifests are gone are deleted (prune) or reported as orphans.
 */
import { jsonEqual } from '../model/canonical-json.js';
import { ConflictError, QuotaExceededError } from '../model/errors.js';
import { formatManifestError } from '../model/manifest-error.js';
import { loadManifestSources, type ManifestSource } from '../model/manifest-loader.js';
import type { LocatedManifest } from '../model/manifest-parser.js';
import { displayName, resourceKey, REVISION_ANNOTATION, type AnyManifest } from '../model/resource.js';
import { LOCAL_VENDOR } from '../security/host-access.js';
import type { SourceConflict } from '../store/sources.js';
import type { DesiredRecord } from '../store/resources.js';
import type { Store } from '../store/store.js';

export interface RevisionInput {
  tenant: string;
  /** The owner the resources are written as: `git:<id>`, `dir:<path>`. */
  owner: string;
  /** What identifies this revision (a commit id, a content digest). */
  revision: string;
  files: readonly ManifestSource[];
  prune: boolean;
  /**
   * Checked inside the write transaction: why this revision may no longer be written (its source
   * was deleted or changed meanwhile), or undefined to go on.
   */
  staleBecause?: () => string | undefined;
}

export type RevisionOutcome =
  | { status: 'applied'; created: number; updated: number; unchanged: number; pruned: string[]; orphans: string[]; resources: number }
  | { status: 'invalid'; errors: string[] }
  | { status: 'conflict'; errors: string[]; conflicts: SourceConflict[] }
  /** It would take the tenant past its plan's limits: rejected whole, with the plan's reason. */
  | { status: 'over_quota'; errors: string[] }
  | { status: 'stale'; reason: string };

/** Parses and validates every file as one set; the manifests, or every error (file:line:column and why). */
function checkRevision(store: Store, input: Pick<RevisionInput, 'tenant' | 'owner' | 'files' | 'prune'>): { manifests: AnyManifest[] } | { errors: string[] } {
  if (input.files.length === 0) return { manifests: [] };
  // References may name resources of other owners, or this owner's that prune will keep.
  const known = (kind: AnyManifest['kind'], namespace: string, name: string): boolean => {
    const found = store.resources.find(input.tenant, { kind, namespace, name });
    return found !== undefined && found.deletionTimestamp === null && (found.source !== input.owner || !input.prune);
  };
  const result = loadManifestSources(input.files, { known, cache: store.manifestCache });
  if (result.errors.length > 0) return { errors: result.errors.map(formatManifestError) };
  const refused = input.owner.startsWith('git:') ? result.manifests.flatMap(hostAccessFromGit) : [];
  if (refused.length > 0) return { errors: refused };
  return { manifests: result.manifests.map((m) => m.manifest) };
}

/**
 * A git source (any member may add one) may not reach cairn's host: a Provider of the `local`
 * vendor or one reading cairn's environment is declared through the API by an owner or admin.
 */
function hostAccessFromGit(located: LocatedManifest): string[] {
  const { manifest } = located;
  if (manifest.kind !== 'Provider') return [];
  const at = (pointer: string): string => {
    const position = located.locate(pointer);
    return `${located.file}:${position.line}:${position.column}`;
  };
  const name = `Provider/${manifest.metadata.name}`;
  if (manifest.spec.vendor === LOCAL_VENDOR) {
    return [`${at('/spec/vendor')}: ${name}: a git source may not declare a Provider of the local vendor (it runs commands on cairn's host); an owner or admin declares it through the API or \`cairn apply\`, and servers here may name it`];
  }
  if (manifest.spec.credentialsRef?.env !== undefined) {
    return [`${at('/spec/credentialsRef/env')}: ${name}: a git source may not read cairn's environment (credentialsRef.env); store the credentials with POST /api/v1/providers and use credentialsRef.secret`];
  }
  return [];
}

function withoutRevision(annotations: Record<string, string> | undefined): Record<string, string> {
  const { [REVISION_ANNOTATION]: _revision, ...rest } = annotations ?? {};
  return rest;
}

/** Whether two JSON values are equal: the same text (as written from the same YAML), else equal once keys are sorted. */
function sameJson(storedText: string, value: unknown): boolean {
  return JSON.stringify(value) === storedText || jsonEqual(JSON.parse(storedText), value);
}

/** The manifest as written: stamped with this revision, or with the one that set it if nothing changed since. */
function stamped(manifest: AnyManifest, existing: DesiredRecord | undefined, revision: string): AnyManifest {
  const annotations = withoutRevision(manifest.metadata.annotations);
  let setBy = revision;
  if (existing !== undefined && existing.deletionTimestamp === null && sameJson(existing.spec, manifest.spec) && sameJson(existing.labels, manifest.metadata.labels ?? {})) {
    const stored = JSON.parse(existing.annotations) as Record<string, string>;
    if (jsonEqual(withoutRevision(stored), annotations)) setBy = stored[REVISION_ANNOTATION] ?? revision;
  }
  return { ...manifest, metadata: { ...manifest.metadata, annotations: { ...annotations, [REVISION_ANNOTATION]: setBy } } };
}

/** Whether writing `manifest` over `existing` would change nothing (what the store's apply calls `unchanged`). */
function writesNothing(manifest: AnyManifest, existing: DesiredRecord | undefined): boolean {
  return (
    existing !== undefined &&
    existing.deletionTimestamp === null &&
    sameJson(existing.spec, manifest.spec) &&
    sameJson(existing.labels, manifest.metadata.labels ?? {}) &&
    sameJson(existing.annotations, manifest.metadata.annotations ?? {})
  );
}

/** Applies a revision all or nothing (see the module comment). Never throws for bad input: the outcome says why. */
export function applyRevision(store: Store, input: RevisionInput): RevisionOutcome {
  const checked = checkRevision(store, input);
  if ('errors' in checked) return { status: 'invalid', errors: checked.errors };
  const { manifests } = checked;
  try {
    return store.transaction((): RevisionOutcome => {
      const stale = input.staleBecause?.();
      if (stale !== undefined) return { status: 'stale', reason: stale };
      // This owner's resources in one read; only names it does not hold yet are looked up one by one.
      const own = store.resources.listDesired({ tenant: input.tenant, source: input.owner });
      const ownByKey = new Map(own.map((r) => [resourceKey(r), r]));
      const existing = manifests.map((m) => {
        const ref = { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name };
        return ownByKey.get(resourceKey(ref)) ?? store.resources.find(input.tenant, ref);
      });
      const conflicts: SourceConflict[] = [];
      existing.forEach((found) => {
        if (found && found.source !== input.owner) {
          conflicts.push({ kind: found.kind, namespace: found.namespace, name: found.name, owner: found.source, claimant: input.owner });
        }
      });
      if (conflicts.length > 0) {
        return {
          status: 'conflict',
          conflicts,
          errors: conflicts.map((c) => `${displayName({ kind: c.kind as AnyManifest['kind'], namespace: c.namespace, name: c.name })} is owned by ${c.owner}; this source may not take it over (remove it here or there)`),
        };
      }
      // Only what changes goes to the store's apply, which would find the rest unchanged one by one.
      const ownExisting = existing.map((found) => (found === undefined ? undefined : ownByKey.get(resourceKey(found))));
      const stampedAll = manifests.map((m, i) => stamped(m, ownExisting[i], input.revision));
      const toWrite = stampedAll.filter((m, i) => !writesNothing(m, ownExisting[i]));
      const unchanged = stampedAll.length - toWrite.length;
      const outcome = toWrite.length > 0 ? store.resources.apply(input.tenant, input.owner, toWrite) : { results: [] };
      const declared = new Set(manifests.map((m) => resourceKey({ kind: m.kind, namespace: m.metadata.namespace, name: m.metadata.name })));
      const gone = own.filter((r) => r.deletionTimestamp === null && !declared.has(resourceKey(r)));
      if (input.prune && gone.length > 0) store.resources.requestDeletion(input.tenant, input.owner, gone);
      const count = (action: string): number => outcome.results.filter((r) => r.action === action).length;
      return {
        status: 'applied',
        created: count('created'),
        updated: count('updated') + count('restored'),
        unchanged: unchanged + count('unchanged'),
        pruned: input.prune ? gone.map(displayName) : [],
        orphans: input.prune ? [] : gone.map(displayName),
        resources: manifests.length,
      };
    });
  } catch (error) {
    // Pruning a resource something outside the source still uses is refused by the store.
    if (error instanceof ConflictError) return { status: 'conflict', errors: [error.message], conflicts: [] };
    if (error instanceof QuotaExceededError) return { status: 'over_quota', errors: [error.message] };
    throw error;
  }
}
