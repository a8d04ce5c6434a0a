/**
 * @module App deployments through the reconcile loop against the sandbox cloud: the first rollout
 * and every rollout of a changed spec are recorded (trigger config); a deployment requested
 * through the API rolls out a new release even with nothing else changed; each ends succeeded,
 * with the build's output when there was a build.
 */
import { describe, expect, it } from 'vitest';
import type { AnyManifest } from '../src/model/resource.js';
import { Controller } from '../src/reconcile/controller.js';
import { observeDrift } from '../src/reconcile/observe-drift.js';
import { appManifest, isReady, providerManifest, serverManifest, useReconcileHarness } from './support/reconcile-harness.js';

const harness = useReconcileHarness();

async function runningApp(manifest: AnyManifest): Promise<string> {
  const h = harness();
  h.apply(providerManifest(h.cloud.url), serverManifest('s1'), manifest);
  h.controller.start();
  await h.until('app running', () => isReady(h.get('App', manifest.metadata.name)));
  return h.get('App', manifest.metadata.name).uid;
}

async function vendorRelease(h: ReturnType<typeof harness>, name: string): Promise<number> {
  const { body } = await h.vendor<{ apps: Array<{ name: string; release: number }> }>('GET', '/v1/apps');
  return body.apps.find((a) => a.name === name)?.release ?? 0;
}

describe('app deployments', () => {
  it('records the first rollout as deployment 1 (config), succeeded once the app runs', async () => {
    const h = harness();
    const uid = await runningApp(appManifest('first', 's1'));
    await h.until('deployment finished', () => h.store.deployments.latest(uid)?.status === 'succeeded');
    const page = h.store.deployments.page(uid, { limit: 10 });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ version: 1, trigger: 'config', status: 'succeeded', message: null, buildOutputTail: null });
    expect(page.items[0]?.finishedAt).not.toBeNull();
  });

  it('rolls out a new release for a deployment requested through the API, with the build output', async () => {
    const h = harness();
    const uid = await runningApp(appManifest('deploy-me', 's1', { build: 'npm ci' }));
    await h.until('first deployment finished', () => h.store.deployments.latest(uid)?.status === 'succeeded');
    const before = await vendorRelease(h, 'deploy-me');

    const requested = h.store.deployments.request('default', uid, { ref: null });
    expect(requested).toMatchObject({ version: 2, status: 'queued', trigger: 'api' });
    await h.until('deployment succeeded', () => h.store.deployments.get(requested.id)?.status === 'succeeded');
    expect(await vendorRelease(h, 'deploy-me')).toBe(before + 1);
    const done = h.store.deployments.get(requested.id);
    expect(done?.buildOutputTail).toContain('npm ci');
    expect(h.get('App', 'deploy-me').status.details?.release).toBe(before + 1);
    await h.until('app running', () => isReady(h.get('App', 'deploy-me')));
    expect(h.store.deployments.page(uid, { limit: 10 }).items.map((d) => [d.version, d.trigger, d.status])).toEqual([
      [2, 'api', 'succeeded'],
      [1, 'config', 'succeeded'],
    ]);
  });

  it('records a requested deployment as DeploymentRequested, not drift, and rolls it out with self-heal off', async () => {
    const h = harness();
    const manifest = appManifest('asked', 's1');
    manifest.metadata.annotations = { 'cairn.dev/self-heal': 'false' };
    const uid = await runningApp(manifest);
    await h.until('first deployment finished', () => h.store.deployments.latest(uid)?.status === 'succeeded');

    const requested = h.store.deployments.request('default', uid, { ref: null });
    await h.until('deployment succeeded', () => h.store.deployments.get(requested.id)?.status === 'succeeded');
    const events = h.store.events.list({ tenant: 'default', uid, limit: 200 });
    expect(events.filter((e) => e.reason === 'DriftDetected').map((e) => e.message)).toEqual([]);
    expect(events.find((e) => e.reason === 'DeploymentRequested')?.message).toMatch(/^deployment 2 was requested: deploying release \d+$/);
  });

  it('does not show a queued deployment as drift to plan --refresh', async () => {
    const h = harness();
    const uid = await runningApp(appManifest('queued', 's1'));
    await h.until('first deployment finished', () => h.store.deployments.latest(uid)?.status === 'succeeded');
    await h.controller.stop();
    h.store.deployments.request('default', uid, { ref: null });
    expect(await observeDrift(h.store, h.dataDir, [h.get('App', 'queued')])).toEqual([]);
  });

  it('takes the newest of several queued deployments and fails the older as superseded', async () => {
    const h = harness();
    const uid = await runningApp(appManifest('burst', 's1'));
    await h.until('first deployment finished', () => h.store.deployments.latest(uid)?.status === 'succeeded');
    await h.controller.stop();
    const older = h.store.deployments.request('default', uid, { ref: null });
    const newer = h.store.deployments.request('default', uid, { ref: null });
    const before = await vendorRelease(h, 'burst');
    // Both requests are waiting when the next reconciler starts.
    const restarted = new Controller(h.store, {
      dataDir: h.dataDir,
      pollMs: 50,
      feedIntervalMs: 20,
      resyncMs: { Provider: 200, Server: 200, Database: 200, App: 200 },
    });
    restarted.start();
    try {
      await h.until('newest deployment succeeded', () => h.store.deployments.get(newer.id)?.status === 'succeeded');
      expect(h.store.deployments.get(older.id)).toMatchObject({ status: 'failed', message: 'superseded by deployment 3' });
      expect(await vendorRelease(h, 'burst')).toBe(before + 1);
    } finally {
      await restarted.stop();
    }
  });

  it('stops an app when spec.state and the stop action agree', async () => {
    const h = harness();
    const uid = await runningApp(appManifest('stopper', 's1'));
    const stop = h.store.transaction(() => {
      h.apply(appManifest('stopper', 's1', { state: 'stopped' }));
      return h.store.actions.request('default', uid, 'stop', {});
    });
    await h.until('the stop to finish', () => h.store.actions.get(stop.id)?.status !== 'pending' && h.store.actions.get(stop.id)?.status !== 'running');
    expect(h.store.actions.get(stop.id)).toMatchObject({ status: 'succeeded' });
    const { body } = await h.vendor<{ apps: Array<{ name: string; status: string }> }>('GET', '/v1/apps');
    expect(body.apps.find((a) => a.name === 'stopper')?.status).toBe('stopped');
    expect(h.get('App', 'stopper').status.phase).toBe('stopped');
  });

  it('records a spec change as a config deployment', async () => {
    const h = harness();
    const uid = await runningApp(appManifest('cfg', 's1'));
    await h.until('first deployment finished', () => h.store.deployments.latest(uid)?.status === 'succeeded');
    h.apply(appManifest('cfg', 's1', { env: { FEATURE: 'on' } }));
    await h.until('second deployment succeeded', () => h.store.deployments.latest(uid)?.version === 2 && h.store.deployments.latest(uid)?.status === 'succeeded');
    expect(h.store.deployments.latest(uid)).toMatchObject({ trigger: 'config' });
    expect(await vendorRelease(h, 'cfg')).toBe(2);
  });
});
