/**
 * @module Server actions through the reconcile loop against the sandbox cloud: a reboot (asked
 * for through the API's record, carried out once, the server running again after), and start /
 * stop, which succeed once the server has settled in spec.state and fail if spec.state disagrees.
 */
import { describe, expect, it } from 'vitest';
import { isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const harness = useReconcileHarness();

async function runningServer(name: string): Promise<string> {
  const h = harness();
  h.apply(providerManifest(h.cloud.url), serverManifest(name));
  h.controller.start();
  await h.until('server running', () => isReady(h.get('Server', name)));
  return h.get('Server', name).uid;
}

async function actionDone(id: string): Promise<void> {
  await harness().until(`action ${id} to finish`, () => ['succeeded', 'failed'].includes(harness().store.actions.get(id)?.status ?? ''));
}

async function vendorStatus(name: string): Promise<string | undefined> {
  const { body } = await harness().vendor<{ servers: Array<{ name: string; status: string }> }>('GET', '/v1/servers');
  return body.servers.find((s) => s.name === name)?.status;
}

describe('server actions', () => {
  it('reboots a running server once and reports it running again', async () => {
    const h = harness();
    const uid = await runningServer('rb-1');
    const reboot = h.store.actions.request('default', uid, 'reboot', {});
    await actionDone(reboot.id);
    expect(h.store.actions.get(reboot.id)).toMatchObject({ status: 'succeeded' });
    expect(h.store.actions.get(reboot.id)?.finishedAt).not.toBeNull();
    const reasons = h.store.events.list({ tenant: 'default', uid, limit: 200 }).map((e) => e.reason);
    expect(reasons.filter((r) => r === 'Rebooting')).toHaveLength(1);
    expect(reasons).toContain('Rebooted');
    await h.until('running again', () => isReady(h.get('Server', 'rb-1')));
    expect(h.get('Server', 'rb-1').status.phase).toBe('running');
    expect(await vendorStatus('rb-1')).toBe('running');
  });

  it('stops a server when spec.state and the action agree, and starts it again', async () => {
    const h = harness();
    const uid = await runningServer('ss-1');
    // The API writes the spec and the action together.
    const stop = h.store.transaction(() => {
      h.apply(serverManifest('ss-1', { state: 'stopped' }));
      return h.store.actions.request('default', uid, 'stop', {});
    });
    await actionDone(stop.id);
    expect(h.store.actions.get(stop.id)).toMatchObject({ status: 'succeeded' });
    expect(await vendorStatus('ss-1')).toBe('stopped');
    expect(h.get('Server', 'ss-1').status.phase).toBe('stopped');

    const start = h.store.transaction(() => {
      h.apply(serverManifest('ss-1', { state: 'running' }));
      return h.store.actions.request('default', uid, 'start', {});
    });
    await actionDone(start.id);
    expect(h.store.actions.get(start.id)).toMatchObject({ status: 'succeeded' });
    expect(await vendorStatus('ss-1')).toBe('running');
  });

  it('fails a stop whose spec.state says running, and leaves the server running', async () => {
    const h = harness();
    const uid = await runningServer('ss-2');
    const stop = h.store.actions.request('default', uid, 'stop', {});
    await actionDone(stop.id);
    expect(h.store.actions.get(stop.id)).toMatchObject({ status: 'failed', message: expect.stringContaining('spec.state') });
    expect(await vendorStatus('ss-2')).toBe('running');
  });
});
