/**
 * @module `cairn delete -f PATH... [--auto-approve] [--wait] [--timeout DURATION]`: deletes the
 * resources those manifests name, dependents first; refused while something not being deleted
 * still uses one of them.
 */
import type { Command } from 'commander';
import { planChanges, recordedFromStored } from '../../model/plan.js';
import { renderPlanText } from '../../model/plan-render-text.js';
import { shouldUseColor } from '../../model/terminal-color.js';
import { DEFAULT_TENANT, displayName, type AnyStoredResource } from '../../model/resource.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { confirmOrRefuse } from '../confirm.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { parseDuration } from '../duration.js';
import { readManifests } from '../manifest-input.js';
import { settleOrHandOff } from '../reconcile-session.js';
import { sortByKind } from '../sort-by-kind.js';

interface DeleteOptions {
  file: string[];
  autoApprove?: boolean;
  wait?: boolean;
  timeout: string;
  dataDir?: string;
}

export function registerDeleteCommand(program: Command): void {
  addDataDirOption(
    program
      .command('delete')
      .description('delete the resources manifests name, at the vendor too')
      .requiredOption('-f, --file <path...>', 'manifest files or directories (- for stdin)')
      .option('--auto-approve', 'skip the interactive approval')
      .option('--wait', 'wait until everything is gone, also when cairn serve reconciles')
      .option('--timeout <duration>', 'how long to wait', '15m'),
  ).action(async (options: DeleteOptions) => {
    const timeoutMs = parseDuration(options.timeout, '--timeout');
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    try {
      const manifests = await readManifests(options.file, store, { checkReferences: false });
      const existing: AnyStoredResource[] = [];
      for (const m of manifests) {
        const ref = { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name };
        const found = store.resources.find(DEFAULT_TENANT, ref);
        if (found) existing.push(found);
        else console.error(`${displayName(ref)} does not exist; nothing to delete`);
      }
      if (existing.length === 0) {
        console.log('Nothing to delete.');
        return;
      }
      const plan = planChanges([], existing.map(recordedFromStored), { prune: true });
      process.stdout.write(renderPlanText(plan, { color: shouldUseColor(process.stdout, process.env) }));
      if (!(await confirmOrRefuse('Do you really want to delete these resources?', options.autoApprove ?? false, 'delete'))) {
        throw new CliError('Delete cancelled.');
      }
      store.resources.requestDeletion(DEFAULT_TENANT, 'api', existing);
      const targets = sortByKind(existing, true).map((r) => ({ uid: r.uid, tenant: r.tenant, kind: r.kind, namespace: r.namespace, name: r.name, deleting: true }));
      await settleOrHandOff(store, targets, { dataDir, timeoutMs, wait: options.wait ?? false, verb: 'Delete' });
    } finally {
      store.close();
    }
  });
}
