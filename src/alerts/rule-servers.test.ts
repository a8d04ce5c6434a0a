/** @module Tests of which servers a rule watches: every label of the selector, or a name it lists, in its namespace, existing at the provider and not being deleted. */
import { describe, expect, it } from 'vitest';
import type { AnyStoredResource, StoredResource } from '../model/resource.js';
import { selectedServers } from './rule-servers.js';

function server(name: string, labels: Record<string, string>, extra: Partial<AnyStoredResource> = {}): AnyStoredResource {
  return { kind: 'Server', name, namespace: 'default', labels, deletionTimestamp: null, status: { externalId: `x-${name}` }, ...extra } as unknown as AnyStoredResource;
}

function rule(selector: object): StoredResource<'AlertRule'> {
  return { kind: 'AlertRule', name: 'r', namespace: 'default', spec: { metric: 'cpu_percent', threshold: 90, selector } } as unknown as StoredResource<'AlertRule'>;
}

describe('selectedServers', () => {
  const servers = [
    server('web-1', { tier: 'web', env: 'prod' }),
    server('web-2', { tier: 'web' }),
    server('db-1', { tier: 'db' }),
    server('web-3', { tier: 'web' }, { namespace: 'other' }),
    server('web-4', { tier: 'web' }, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    server('web-5', { tier: 'web' }, { status: {} } as Partial<AnyStoredResource>),
  ];
  const names = (selector: object): string[] => selectedServers(rule(selector), servers).map((s) => s.name);

  it('selects by every label, by name, or both, in the rule\'s namespace, among servers that exist and stay', () => {
    expect(names({ labels: { tier: 'web' } })).toEqual(['web-1', 'web-2']);
    expect(names({ labels: { tier: 'web', env: 'prod' } })).toEqual(['web-1']);
    expect(names({ servers: ['db-1', 'missing'] })).toEqual(['db-1']);
    expect(names({ labels: { env: 'prod' }, servers: ['db-1'] })).toEqual(['web-1', 'db-1']);
    expect(names({ labels: {} })).toEqual([]);
  });
});
