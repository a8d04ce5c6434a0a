/**
 * @module Server-side apply's field ownership: set what is sent, drop what the manager no
 * longer sends, conflict on fields someone else set, and force.
 */
import { describe, expect, it } from 'vitest';
import { serverSideApply } from './server-side-apply.js';

const live = {
  apiVersion: 'cairn.dev/v1', kind: 'Server',
  metadata: { name: 'web-1', labels: { team: 'shop', tier: 'web' }, uid: 'u' },
  spec: { provider: 'sandbox', region: 'eu-1', size: 'small', image: 'debian-12' },
  status: { phase: 'running' },
};

describe('serverSideApply', () => {
  it('changes the fields the manager owns and leaves the rest, status included', () => {
    const previous = { metadata: { name: 'web-1', labels: { team: 'shop' } }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } };
    const applied = { metadata: { name: 'web-1', labels: { team: 'shop' } }, spec: { provider: 'sandbox', region: 'eu-1', size: 'large' } };
    const { object, conflicts } = serverSideApply(live, previous, applied, false);
    expect(conflicts).toEqual([]);
    expect(object).toMatchObject({ spec: { size: 'large', image: 'debian-12' }, metadata: { labels: { team: 'shop', tier: 'web' }, uid: 'u' }, status: { phase: 'running' } });
  });

  it('removes a field the manager applied before and no longer sends, unless someone changed it since', () => {
    const previous = { metadata: { name: 'web-1', labels: { team: 'shop', tier: 'web' } }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small', image: 'debian-12' } };
    const applied = { metadata: { name: 'web-1' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } };
    const { object } = serverSideApply(live, previous, applied, false);
    expect(object.metadata).toEqual({ name: 'web-1', uid: 'u' });
    expect(object.spec).toEqual({ provider: 'sandbox', region: 'eu-1', size: 'small' });
    const changedSince = serverSideApply({ ...live, spec: { ...live.spec, image: 'ubuntu-24' } }, previous, applied, false).object;
    expect((changedSince.spec as { image: string }).image).toBe('ubuntu-24');
  });

  it('reports a conflict for each field someone else set to another value, and force takes them over', () => {
    const applied = { metadata: { name: 'web-1', labels: { tier: 'db' } }, spec: { size: 'large', region: 'eu-1' } };
    expect(serverSideApply(live, undefined, applied, false).conflicts).toEqual(['.spec.size', '.metadata.labels.tier']);
    const previous = { spec: { size: 'medium' } };
    expect(serverSideApply(live, previous, applied, false).conflicts).toEqual(['.spec.size', '.metadata.labels.tier']);
    const forced = serverSideApply(live, undefined, applied, true);
    expect(forced.conflicts).toEqual([]);
    expect(forced.object).toMatchObject({ spec: { size: 'large' }, metadata: { labels: { tier: 'db' } } });
  });
});
