/**
 * @module `cairn plan -f PATH... [-o text|json|markdown] [--detailed-exitcode] [--prune]`:
 * what applying those manifests would change, against the state recorded in the data dir.
 * Exit codes: 0 no changes (or, without --detailed-exitcode, any successful plan), 2 changes
 * with --detailed-exitcode, 1 on error.
 */
import type { Command } from 'commander';
import { planHasChanges } from '../../model/plan.js';
import { renderPlanJson } from '../../model/plan-render-json.js';
import { renderPlanMarkdown } from '../../model/plan-render-markdown.js';
import { renderPlanText } from '../../model/plan-render-text.js';
import { shouldUseColor } from '../../model/terminal-color.js';
import { Store } from '../../store/store.js';
import { CliError } from '../cli-error.js';
import { addDataDirOption, resolveDataDir } from '../data-dir.js';
import { readManifests } from '../manifest-input.js';
import { planForManifests } from '../../store/plan-for-manifests.js';

interface PlanOptions {
  file: string[];
  output: string;
  detailedExitcode?: boolean;
  prune?: boolean;
  dataDir?: string;
}

export function registerPlanCommand(program: Command): void {
  addDataDirOption(
    program
      .command('plan')
      .description('show what applying manifests would change')
      .requiredOption('-f, --file <path...>', 'manifest files or directories (- for stdin)')
      .option('-o, --output <format>', 'text, json or markdown', 'text')
      .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
      .option('--prune', 'also plan the deletion of recorded resources absent from the manifests'),
  ).action(async (options: PlanOptions) => {
    if (!['text', 'json', 'markdown'].includes(options.output)) throw new CliError(`unknown output format "${options.output}"; use text, json or markdown`);
    const store = Store.open(resolveDataDir(options.dataDir));
    try {
      const manifests = await readManifests(options.file, store);
      const plan = planForManifests(store, manifests, { prune: options.prune ?? false });
      const rendered =
        options.output === 'json'
          ? renderPlanJson(plan)
          : options.output === 'markdown'
            ? renderPlanMarkdown(plan)
            : renderPlanText(plan, { color: shouldUseColor(process.stdout, process.env) });
      process.stdout.write(rendered.endsWith('\n') ? rendered : `${rendered}\n`);
      if (options.detailedExitcode && planHasChanges(plan)) process.exitCode = 2;
    } finally {
      store.close();
    }
  });
}
