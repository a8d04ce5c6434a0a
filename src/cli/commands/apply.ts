/**
 * @module `cairn apply -f PATH... [--auto-approve] [--wait] [--timeout DURATION]`: shows the
 * plan, asks for approval, writes the manifests as desired state (source `api`), and gets them
 * reconciled with live progress per resource. With no other process reconciling the data dir,
 * apply runs the reconcile loop itself until everything is Ready or has failed; when
 * `cairn serve` holds the lease, apply returns once written, or follows its progress with --wait.
 * Exit 1 when anything failed or the timeout passed.
 */
import type { Command } from 'commander';
import { planHasChanges } from '../../model/plan.js';
import { renderPlanText } from '../../model/plan-render-text.js';
import { shouldUseColor } from '../../model/terminal-color.js';
import { DEFAULT_TENANT } from '../../model/resource.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { confirmOrRefuse } from '../confirm.js';
import type { ConvergenceTarget } from '../convergence.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { parseDuration } from '../duration.js';
import { readManifests } from '../manifest-input.js';
import { planForManifests } from '../../store/plan-for-manifests.js';
import { sortByKind } from '../sort-by-kind.js';
import { settleOrHandOff } from '../reconcile-session.js';

interface ApplyOptions {
  file: string[];
  autoApprove?: boolean;
  wait?: boolean;
  timeout: string;
  dataDir?: string;
}

export function registerApplyCommand(program: Command): void {
  addDataDirOption(
    program
      .command('apply')
      .description('make the world match manifests')
      .requiredOption('-f, --file <path...>', 'manifest files or directories (- for stdin)')
      .option('--auto-approve', 'skip the interactive approval of the plan')
      .option('--wait', 'wait until everything is Ready or has failed, also when cairn serve reconciles')
      .option('--timeout <duration>', 'how long to wait for convergence', '15m'),
  ).action(async (options: ApplyOptions) => {
    const timeoutMs = parseDuration(options.timeout, '--timeout');
    const dataDir = resolveDataDir(options.dataDir);
    const store = Store.open(dataDir);
    try {
      const targets = await recordDesiredState(store, options);
      await settleOrHandOff(store, targets, { dataDir, timeoutMs, wait: options.wait ?? false, verb: 'Apply' });
    } finally {
      store.close();
    }
  });
}

/**
 * Shows the plan, asks, and writes the manifests; returns what to follow. Its own function so
 * that the parsed manifests and the plan are garbage once it returns, not held while following
 * a fleet's reconcile for minutes.
 */
async function recordDesiredState(store: Store, options: ApplyOptions): Promise<ConvergenceTarget[]> {
  const manifests = await readManifests(options.file, store);
  const plan = planForManifests(store, manifests, { prune: false });
  const color = shouldUseColor(process.stdout, process.env);
  if (planHasChanges(plan)) {
    process.stdout.write(renderPlanText(plan, { color }));
    if (!(await confirmOrRefuse('Do you want to perform these actions?', options.autoApprove ?? false, 'apply'))) {
      throw new CliError('Apply cancelled.');
    }
    store.resources.apply(DEFAULT_TENANT, 'api', manifests);
  } else {
    console.log('No changes to the desired state; making sure the world matches it.');
  }
  return sortByKind(manifests).map((m) => {
    const stored = store.resources.find(DEFAULT_TENANT, { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name });
    if (!stored) throw new Error(`${m.kind}/${m.metadata.name} was not recorded`);
    return { uid: stored.uid, tenant: stored.tenant, kind: stored.kind, namespace: stored.namespace, name: stored.name, deleting: false };
  });
}
