/**
 * @module Child script (run compiled, from dist/bench/) that does what `cairn plan -o json` does,
 * step by step, timing each step: process start and module loading, opening the store, loading
 * and validating the manifests, reading the store, planning, rendering. Writes the figures as
 * JSON to `--out`; the plan itself goes to stdout, which the caller discards.
 * Usage: node dist/bench/support/plan-phases.js --data-dir DIR --out FILE -f PATH...
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readManifests } from '../../src/cli/manifest-input.js';
import { desiredFromManifest, planChanges, type PlanSummary } from '../../src/model/plan.js';
import { renderPlanJson } from '../../src/model/plan-render-json.js';
import { DEFAULT_TENANT } from '../../src/model/resource.js';
import { recordedForPlan } from '../../src/store/plan-for-manifests.js';
import { Store } from '../../src/store/store.js';

export interface PlanPhases {
  /** Process start to the first line of this module: node's bootstrap and loading cairn's modules. */
  startupMs: number;
  openMs: number;
  /** Reading, parsing and validating the manifests (schemas, names, references). */
  loadMs: number;
  /** Listing the recorded resources of the tenant. */
  storeMs: number;
  planMs: number;
  /** JSON rendering and writing it to stdout. */
  renderMs: number;
  /** Process start to the end of the work (exit is not counted). */
  totalMs: number;
  maxRssKb: number;
  summary: PlanSummary;
  renderedBytes: number;
}

/** Taken first thing, so it covers node's bootstrap and evaluating the imports above. */
const startupMs = performance.now();

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'data-dir': { type: 'string' }, out: { type: 'string' }, file: { type: 'string', short: 'f', multiple: true } },
  });
  const dataDir = values['data-dir'];
  const out = values.out;
  const files = values.file ?? [];
  if (dataDir === undefined || out === undefined || files.length === 0) throw new Error('usage: plan-phases --data-dir DIR --out FILE -f PATH...');

  let mark = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const elapsed = now - mark;
    mark = now;
    return elapsed;
  };
  const store = Store.open(dataDir);
  const openMs = lap();
  const manifests = await readManifests(files, store);
  const loadMs = lap();
  // The same steps as planForManifests (src/store/plan-for-manifests.ts), timed apart.
  const recorded = recordedForPlan(store, DEFAULT_TENANT);
  const storeMs = lap();
  const plan = planChanges(manifests.map(desiredFromManifest), recorded, { prune: false });
  const planMs = lap();
  const rendered = renderPlanJson(plan);
  process.stdout.write(rendered);
  const renderMs = lap();
  const totalMs = performance.now();
  store.close();
  const phases: PlanPhases = {
    startupMs,
    openMs,
    loadMs,
    storeMs,
    planMs,
    renderMs,
    totalMs,
    maxRssKb: process.resourceUsage().maxRSS,
    summary: plan.summary,
    renderedBytes: Buffer.byteLength(rendered),
  };
  writeFileSync(out, JSON.stringify(phases));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
