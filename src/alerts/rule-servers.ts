/**
 * @module Which servers an AlertRule watches: the servers of its namespace that carry every label
 * of `selector.labels` (when given) or are named in `selector.servers`, that are not being
 * deleted and that exist at their provider (only those have metrics).
 */
import type { AnyStoredResource, StoredResource } from '../model/resource.js';

export function selectedServers(rule: StoredResource<'AlertRule'>, resources: readonly AnyStoredResource[]): Array<StoredResource<'Server'>> {
  const { labels, servers: names } = rule.spec.selector;
  const byLabels = (s: AnyStoredResource): boolean =>
    labels !== undefined && Object.keys(labels).length > 0 && Object.entries(labels).every(([key, value]) => s.labels[key] === value);
  const byName = (s: AnyStoredResource): boolean => (names ?? []).includes(s.name);
  return resources.filter((s): s is StoredResource<'Server'> =>
    s.kind === 'Server' && s.namespace === rule.namespace && s.deletionTimestamp === null && Boolean(s.status.externalId) && (byLabels(s) || byName(s)));
}
