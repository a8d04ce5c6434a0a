/**
 * @module `cairn import KIND NAME --id VENDOR_ID [-n NS] [--timeout DURATION]`: brings an existing
 * vendor resource under a recorded resource that cairn has not created yet, by setting its
 * `cairn.dev/external-id` annotation; the reconciler then observes that one and adopts it instead
 * of creating one (an imported resource is left at the vendor when deleted unless its
 * `deletionPolicy` says Delete). With `cairn serve` running it is asked to look at once;
 * otherwise it is reconciled here until it settles. Resources owned by a git source or by the
 * cluster take the annotation where they are declared, not here. Exit 1 on any refusal.
 */
import type { Command } from 'commander';
import { KINDS, parseKindName, type Kind } from '../../model/kinds.js';
import { DEFAULT_NAMESPACE, DEFAULT_TENANT, displayName, EXTERNAL_ID_ANNOTATION, importedExternalId, type AnyStoredResource } from '../../model/resource.js';
import { Controller } from '../../reconcile/controller.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { parseDuration } from '../duration.js';
import { reconcileUntilSettled } from '../reconcile-session.js';
import { reportConvergence } from '../report-convergence.js';

interface ImportOptions {
  id: string;
  namespace: string;
  timeout: string;
  dataDir?: string;
}

/** The kinds whose reconcilers can adopt an existing vendor resource. */
export const IMPORTABLE_KINDS: readonly Kind[] = ['Server', 'Database'];

/** Why this resource cannot take the annotation here, or null when it can. */
export function importRefusal(resource: AnyStoredResource, id: string): string | null {
  const name = displayName(resource);
  const line = `${EXTERNAL_ID_ANNOTATION}: "${id}"`;
  if (resource.source.startsWith('git:')) {
    return `${name} comes from git source ${resource.source.slice(4)}: put the annotation ${line} on it in git (a change made here would be undone at its next sync)`;
  }
  if (resource.source === 'kubernetes') return `${name} is a custom resource in the cluster: annotate it there (kubectl annotate ${resource.kind.toLowerCase()} ${resource.name} ${EXTERNAL_ID_ANNOTATION}=${id})`;
  if (resource.deletionTimestamp !== null) return `${name} is being deleted`;
  if (resource.status.externalId) {
    return resource.status.externalId === id
      ? `${name} already stands for ${resource.kind.toLowerCase()} ${id}; nothing to import`
      : `${name} already has vendor id ${resource.status.externalId}; only a resource cairn has not created yet can import ${id}`;
  }
  return null;
}

export function registerImportCommand(program: Command): void {
  addDataDirOption(
    program
      .command('import')
      .description('adopt an existing vendor resource under a recorded resource instead of creating one')
      .argument('<kind>', `${IMPORTABLE_KINDS.join(' or ')} (singular, plural or lower case)`)
      .argument('<name>', 'the resource name')
      .requiredOption('--id <vendor-id>', 'the vendor\'s id of the existing resource')
      .option('-n, --namespace <namespace>', 'its namespace', DEFAULT_NAMESPACE)
      .option('--timeout <duration>', 'how long to wait for it to settle', '5m'),
  ).action(async (kindText: string, name: string, options: ImportOptions) => {
    const kind = parseKindName(kindText);
    if (!kind) throw new CliError(`unknown kind "${kindText}"; kinds are ${KINDS.join(', ')}`);
    if (!IMPORTABLE_KINDS.includes(kind)) throw new CliError(`a ${kind} cannot be imported; ${IMPORTABLE_KINDS.join(' and ')} can`);
    const id = options.id.trim();
    if (id === '') throw new CliError('--id: give the vendor\'s id of the existing resource');
    const timeoutMs = parseDuration(options.timeout, '--timeout');
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    try {
      const resource = store.resources.find(DEFAULT_TENANT, { kind, namespace: options.namespace, name });
      if (!resource) throw new CliError(`${displayName({ kind, namespace: options.namespace, name })} not found; apply its manifest first (or put ${EXTERNAL_ID_ANNOTATION}: "${id}" in it)`);
      const refusal = importRefusal(resource, id);
      if (refusal !== null) throw new CliError(refusal);
      const previous = importedExternalId(resource);
      store.resources.annotate(resource.uid, EXTERNAL_ID_ANNOTATION, id);
      store.resources.touch(resource.uid);
      console.log(`${displayName(resource)}: ${EXTERNAL_ID_ANNOTATION} set to ${id}${previous !== undefined && previous !== id ? ` (was ${previous})` : ''}; put it in its manifest too, or applying the file again drops it before the import is done`);
      const holder = Controller.activeReconciler(store);
      if (holder) {
        console.log(`Asked cairn (pid ${holder.pid} on ${holder.host}) to import it now; \`cairn get ${kind.toLowerCase()} ${name}\` shows what it found`);
        return;
      }
      const target = { uid: resource.uid, tenant: resource.tenant, kind, namespace: resource.namespace, name, deleting: false };
      const report = await reconcileUntilSettled(store, [target], { dataDir, timeoutMs, write: (line) => console.log(line), note: (line) => console.error(line) });
      reportConvergence(report, 'Import');
    } finally {
      store.close();
    }
  });
}
