/**
 * @module Reads the manifests a command was given (files, directories, `-` for stdin) as one set.
 * Any error stops the command before anything is written, with every error on stderr in the
 * form `file:line:column Kind/name field: reason`. References may also name resources the
 * store already holds. With a store, files read before (same bytes) come from its manifest cache.
 */
import { formatLoadErrors, loadManifestPaths } from '../model/manifest-loader.js';
import { DEFAULT_TENANT, type AnyManifest } from '../model/resource.js';
import type { Store } from '../store/store.js';
import { CliError } from './cli-error.js';

export async function readManifests(paths: readonly string[], store?: Store, options: { checkReferences?: boolean } = {}): Promise<AnyManifest[]> {
  // Deleting names resources only; what they reference need not exist.
  const known = options.checkReferences === false
    ? (): boolean => true
    : store
    ? (kind: AnyManifest['kind'], namespace: string, name: string): boolean => {
        const found = store.resources.find(DEFAULT_TENANT, { kind, namespace, name });
        return found !== undefined && found.deletionTimestamp === null;
      }
    : undefined;
  const result = await loadManifestPaths(paths, { known, ...(store ? { cache: store.manifestCache } : {}) });
  if (result.errors.length > 0) {
    const lines = formatLoadErrors(result);
    throw new CliError(`${lines.join('\n')}\n${result.errors.length} error${result.errors.length === 1 ? '' : 's'}; nothing was changed`);
  }
  return result.manifests.map((m) => m.manifest);
}
