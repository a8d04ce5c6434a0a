/**
 * @module `cairn plan -f PATH... [-o text|json|markdown] [--detailed-exitcode] [--prune] [--refresh]`:
 * what applying those manifests would change, against the state recorded in the data dir; with
 * `--refresh` it first looks at the world and shows what changed outside cairn (like `terraform
 * plan`). With `--server URL --token T [--source NAME]` the plan comes from a running cairn
 * (for CI on pull requests). Exit codes: 0 no changes (or, without --detailed-exitcode, any
 * successful plan), 2 changes with --detailed-exitcode (drift cairn will put back counts), 1 on error.
 */
import type { Command } from 'commander';
import { driftNeedsChange, driftToJson, renderDriftMarkdown, renderDriftText, type DriftItem } from '../../model/drift.js';
import { planHasChanges, type Plan } from '../../model/plan.js';
import { planToApiJson } from '../../model/plan-render-json.js';
import { renderPlanMarkdown } from '../../model/plan-render-markdown.js';
import { renderPlanText } from '../../model/plan-render-text.js';
import { DEFAULT_TENANT, resourceKey } from '../../model/resource.js';
import { shouldUseColor } from '../../model/terminal-color.js';
import { Store } from '../../store/store.js';
import { planForManifests } from '../../store/plan-for-manifests.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { readManifests } from '../manifest-input.js';
import { serverToken } from '../server-token.js';

interface PlanOptions {
  file: string[];
  output: string;
  detailedExitcode?: boolean;
  prune?: boolean;
  refresh?: boolean;
  server?: string;
  token?: string;
  source?: string;
  dataDir?: string;
}

function render(plan: Plan, drift: DriftItem[] | undefined, output: string): string {
  if (output === 'json') {
    const json = planToApiJson(plan);
    return `${JSON.stringify(drift === undefined ? json : { ...json, drift: driftToJson(drift) }, null, 2)}\n`;
  }
  if (output === 'markdown') return (drift === undefined ? '' : renderDriftMarkdown(drift)) + renderPlanMarkdown(plan);
  return (drift === undefined ? '' : renderDriftText(drift)) + renderPlanText(plan, { color: shouldUseColor(process.stdout, process.env) });
}

async function localPlan(options: PlanOptions): Promise<{ plan: Plan; drift?: DriftItem[] }> {
  const dataDir = resolveDataDir(options.dataDir);
  const store = Store.open(dataDir);
  try {
    const manifests = await readManifests(options.file, store);
    const plan = planForManifests(store, manifests, { prune: options.prune ?? false });
    if (!options.refresh) return { plan };
    const planned = new Set(plan.changes.filter((c) => c.action !== 'create' && c.action !== 'import').map((c) => resourceKey(c)));
    const recorded = store.resources.list({ tenant: DEFAULT_TENANT }).filter((r) => planned.has(resourceKey(r)));
    // The drivers load only for --refresh: a plan of the data dir needs none of them.
    const { observeDrift } = await import('../../reconcile/observe-drift.js');
    return { plan, drift: await observeDrift(store, dataDir, recorded) };
  } finally {
    store.close();
  }
}

export function registerPlanCommand(program: Command): void {
  addDataDirOption(
    program
      .command('plan')
      .description('show what applying manifests would change')
      .requiredOption('-f, --file <path...>', 'manifest files or directories (- for stdin)')
      .option('-o, --output <format>', 'text, json or markdown', 'text')
      .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
      .option('--prune', 'also plan the deletion of recorded resources absent from the manifests')
      .option('--refresh', 'first look at the world and show what changed outside cairn')
      .option('--server <url>', 'plan against a running cairn instead of the data dir (CI)')
      .option('--token <token>', 'API token for --server (env CAIRN_TOKEN; else the one cairn login stored)')
      .option('--source <name>', 'with --server: plan the files as this git source\'s next revision (deleted files show as deletions)'),
  ).action(async (options: PlanOptions) => {
    if (!['text', 'json', 'markdown'].includes(options.output)) throw new CliError(`unknown output format "${options.output}"; use text, json or markdown`);
    let result: { plan: Plan; drift?: DriftItem[] };
    if (options.server !== undefined) {
      if (options.refresh) throw new CliError('--refresh looks at the world from the data dir; with --server the running cairn keeps it refreshed (see its events)');
      if (options.prune) throw new CliError('with --server, name the git source whose files these are with --source NAME: its resources the files no longer name are planned as deletions');
      const token = await serverToken(options.server, options.token);
      const { remotePlan } = await import('../remote-plan.js');
      result = { plan: await remotePlan({ server: options.server, token, files: options.file, ...(options.source !== undefined ? { source: options.source } : {}) }) };
    } else {
      if (options.source !== undefined) throw new CliError('--source goes with --server (the git source is known to the running cairn)');
      result = await localPlan(options);
    }
    const rendered = render(result.plan, result.drift, options.output);
    process.stdout.write(rendered.endsWith('\n') ? rendered : `${rendered}\n`);
    if (options.detailedExitcode && (planHasChanges(result.plan) || driftNeedsChange(result.drift ?? []))) process.exitCode = 2;
  });
}
