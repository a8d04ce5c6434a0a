/**
 * @module `cairn serve --apply PATH...`: applies manifests when the server starts (plan shown,
 * approved automatically) and reports their progress until they settle, while serving goes on.
 */
import { planHasChanges } from '../model/plan.js';
import { renderPlanText } from '../model/plan-render-text.js';
import { shouldUseColor } from '../model/terminal-color.js';
import { DEFAULT_TENANT, displayName, type AnyManifest } from '../model/resource.js';
import type { Store } from '../store/store.js';
import { appUrlLines } from './app-urls.js';
import { followConvergence, type ConvergenceTarget } from './convergence.js';
import { planForManifests } from '../store/plan-for-manifests.js';
import { sortByKind } from './sort-by-kind.js';

const START_TIMEOUT_MS = 15 * 60_000;

export function applyAtStart(store: Store, manifests: readonly AnyManifest[], stopped: () => boolean): void {
  const plan = planForManifests(store, manifests, { prune: false });
  if (planHasChanges(plan)) {
    process.stdout.write(renderPlanText(plan, { color: shouldUseColor(process.stdout, process.env) }));
    store.resources.apply(DEFAULT_TENANT, 'api', manifests);
  } else {
    console.log('manifests given with --apply are already the desired state');
  }
  const targets: ConvergenceTarget[] = sortByKind(manifests).flatMap((m) => {
    const r = store.resources.find(DEFAULT_TENANT, { kind: m.kind, namespace: m.metadata.namespace ?? 'default', name: m.metadata.name });
    return r ? [{ uid: r.uid, tenant: r.tenant, kind: r.kind, namespace: r.namespace, name: r.name, deleting: false }] : [];
  });
  void followConvergence(store, targets, {
    timeoutMs: START_TIMEOUT_MS,
    write: (line) => console.log(line),
    cancelled: stopped,
  }).then((report) => {
    if (stopped()) return;
    const problems = [...report.states.values()].filter((s) => s.state !== 'ready');
    if (problems.length === 0) {
      console.log(`all ${targets.length} resources are ready; look at them with: cairn get servers (or databases, apps)`);
      for (const line of appUrlLines(store, targets)) console.log(line);
    } else {
      for (const p of problems) console.error(`${displayName(p.target)} is ${p.state}: ${p.detail}`);
    }
  });
}
