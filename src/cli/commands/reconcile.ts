/**
 * @module `cairn reconcile KIND NAME [--wait] [--timeout DURATION]`: reconcile one resource now,
 * a stalled one included (what `POST /api/v1/{servers|databases|apps}/{id}/reconcile` does).
 * With `cairn serve` running it is asked to look at once; otherwise it is reconciled here until
 * it settles. Exit 1 when it fails or the timeout passes.
 */
import type { Command } from 'commander';
import { KINDS, parseKindName } from '../../model/kinds.js';
import { DEFAULT_NAMESPACE, DEFAULT_TENANT, displayName } from '../../model/resource.js';
import { Controller } from '../../reconcile/controller.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { parseDuration } from '../duration.js';
import { reconcileUntilSettled } from '../reconcile-session.js';
import { reportConvergence } from '../report-convergence.js';

interface ReconcileOptions {
  namespace: string;
  wait?: boolean;
  timeout: string;
  dataDir?: string;
}

export function registerReconcileCommand(program: Command): void {
  addDataDirOption(
    program
      .command('reconcile')
      .description('reconcile one resource now, a stalled one included')
      .argument('<kind>', `one of ${KINDS.join(', ')} (singular, plural or lower case)`)
      .argument('<name>', 'the resource name')
      .option('-n, --namespace <namespace>', 'its namespace', DEFAULT_NAMESPACE)
      .option('--wait', 'with cairn serve running, follow the reconcile until it settles')
      .option('--timeout <duration>', 'how long to wait for it to settle', '5m'),
  ).action(async (kindText: string, name: string, options: ReconcileOptions) => {
    const kind = parseKindName(kindText);
    if (!kind) throw new CliError(`unknown kind "${kindText}"; kinds are ${KINDS.join(', ')}`);
    const timeoutMs = parseDuration(options.timeout, '--timeout');
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    try {
      const resource = store.resources.find(DEFAULT_TENANT, { kind, namespace: options.namespace, name });
      if (!resource) throw new CliError(`${displayName({ kind, namespace: options.namespace, name })} not found`);
      store.resources.touch(resource.uid);
      const holder = Controller.activeReconciler(store);
      if (holder && options.wait !== true) {
        console.log(`Asked cairn (pid ${holder.pid} on ${holder.host}) to reconcile ${displayName(resource)} now; \`cairn get ${kind.toLowerCase()} ${name}\` shows what it found`);
        return;
      }
      const target = { uid: resource.uid, tenant: resource.tenant, kind, namespace: resource.namespace, name, deleting: resource.deletionTimestamp !== null };
      const report = await reconcileUntilSettled(store, [target], { dataDir, timeoutMs, write: (line) => console.log(line), note: (line) => console.error(line) });
      reportConvergence(report, resource.deletionTimestamp !== null ? 'Delete' : 'Reconcile');
    } finally {
      store.close();
    }
  });
}
