/**
 * @module The last lines after manifests converge: where each App is served (its stable URL),
 * so that what was just applied can be opened.
 */
import type { Store } from '../store/store.js';
import type { ConvergenceTarget } from './convergence.js';

/** `App/shop is served at http://127.0.0.1:41234`, for each target App that has a URL. */
export function appUrlLines(store: Store, targets: readonly ConvergenceTarget[]): string[] {
  return targets.flatMap((t) => {
    if (t.kind !== 'App' || t.deleting) return [];
    const app = store.resources.find(t.tenant, { kind: 'App', namespace: t.namespace, name: t.name });
    const url = app?.status.endpoints?.url;
    return typeof url === 'string' && url !== '' ? [`App/${t.name} is served at ${url}`] : [];
  });
}
