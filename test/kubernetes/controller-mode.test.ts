/**
 * @module Controller mode against a test API server that follows the Kubernetes protocols (no
 * cluster here): custom resources become desired state owned by `kubernetes`, cairn's finalizer
 * goes on, status flows back through the status subresource with conditions and
 * observedGeneration, Events are recorded, credentials come from a Secret, deletion goes
 * through the vendor before the finalizer comes off, invalid resources say why, the informers
 * ask for bookmarks, resume from their resourceVersion and relist after 410 Gone, and of two
 * replicas only the Lease holder reconciles.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { clusterFrom } from '../../src/sources/kubernetes/cluster.js';
import { KubernetesMode } from '../../src/sources/kubernetes/kubernetes-mode.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../support/fake-kube-apiserver.js';
import { useReconcileHarness } from '../support/reconcile-harness.js';

const harness = useReconcileHarness();
const running: Array<{ stop: () => Promise<void> }> = [];
let api: FakeKubeApiServer | undefined;

afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  await api?.close();
  api = undefined;
});

function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: 'test', server: url, skipTLSVerify: true }, { name: 'cairn', token: 'test' });
  return kc;
}

function startMode(server: FakeKubeApiServer, identity: string, logs: string[]): KubernetesMode {
  const h = harness();
  let reconciling = false;
  const mode = new KubernetesMode(h.store, clusterFrom(kubeConfigFor(server.url)), { tenant: 'default', identity, leaseDurationSeconds: 1, renewMs: 100, pollMs: 50 }, {
    startReconciling: () => {
      reconciling = true;
      h.controller.start();
    },
    stopReconciling: async () => {
      if (reconciling) await h.controller.stop();
      reconciling = false;
    },
    afterWrite: () => h.controller.readFeed(),
    log: (line) => logs.push(line),
  });
  mode.start();
  running.push(mode);
  return mode;
}

const cr = (kind: string, name: string, spec: Record<string, unknown>): { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> } => ({ apiVersion: 'cairn.dev/v1', kind, metadata: { name }, spec });

describe('controller mode', () => {
  it('turns custom resources into desired state, writes status back, records Events, and deletes through the finalizer', async () => {
    const h = harness();
    api = await startFakeKubeApiServer();
    const server = api;
    server.setSecret('default', 'sandbox-creds', { token: 'from-a-secret' });
    const logs: string[] = [];
    startMode(server, 'replica-a', logs);
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: h.cloud.url, credentialsRef: { secret: 'sandbox-creds' } }));
    server.create('servers', 'default', cr('Server', 'web-1', { provider: 'sandbox', region: 'eu-1', size: 'small' }));
    await h.until('web-1 to be running in the custom resource\'s status', () => {
      const status = server.get('servers/default/web-1')?.status as { phase?: string } | undefined;
      return status?.phase === 'running';
    });
    expect(h.get('Server', 'web-1').source).toBe('kubernetes');
    expect(h.store.secrets.get('default', 'provider-credentials', 'sandbox-creds')).toBe('{"token":"from-a-secret"}');
    const web1 = server.get('servers/default/web-1');
    expect(web1?.metadata.finalizers).toEqual(['cairn.dev/finalizer']);
    expect(web1?.status).toMatchObject({ observedGeneration: 1, conditions: expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'True', observedGeneration: 1 })]) });
    await h.until('a Created event on web-1', () => server.events.some((e) => (e.involvedObject as { name?: string }).name === 'web-1' && e.reason === 'Created'));

    server.patch('servers', 'default', 'web-1', { spec: { size: 'large' } });
    await h.until('the resize to be observed at generation 2', () => (server.get('servers/default/web-1')?.status as { observedGeneration?: number } | undefined)?.observedGeneration === 2);
    expect(h.get('Server', 'web-1').spec).toMatchObject({ size: 'large' });

    server.delete('servers', 'default', 'web-1');
    await h.until('the custom resource to be gone once cairn deleted the server', () => server.get('servers/default/web-1') === undefined);
    expect(h.find('Server', 'web-1')).toBeUndefined();
    const atVendor = await h.vendor<{ servers: Array<{ name: string; status: string }> }>('GET', '/v1/servers');
    expect(atVendor.body.servers.filter((s) => s.status !== 'deleted')).toEqual([]);
  });

  it('says on the Synced condition why a resource cannot be applied, and changes nothing', async () => {
    const h = harness();
    api = await startFakeKubeApiServer();
    const server = api;
    startMode(server, 'replica-a', []);
    server.create('servers', 'default', cr('Server', 'bad', { provider: 'sandbox', region: 'eu-1', size: 3 }));
    await h.until('a Synced=False condition', () => ((server.get('servers/default/bad')?.status as { conditions?: unknown[] } | undefined)?.conditions ?? []).length > 0);
    expect(server.get('servers/default/bad')?.status).toMatchObject({ conditions: [{ type: 'Synced', status: 'False', reason: 'InvalidSpec', message: expect.stringContaining('spec.size: must be a string') }] });
    expect(h.find('Server', 'bad')).toBeUndefined();
    expect(server.events.some((e) => e.type === 'Warning' && e.reason === 'InvalidSpec')).toBe(true);
  });

  it('watches with bookmarks, resumes from its resourceVersion, relists after 410 Gone, and backs off after errors', async () => {
    const h = harness();
    api = await startFakeKubeApiServer();
    const server = api;
    const logs: string[] = [];
    startMode(server, 'replica-a', logs);
    server.create('providers', 'default', cr('Provider', 'sandbox', { vendor: 'sandbox', endpoint: h.cloud.url }));
    await h.until('the provider in the store', () => h.find('Provider', 'sandbox') !== undefined);
    expect(server.watches.every((w) => w.allowWatchBookmarks === 'true')).toBe(true);
    const watchesBefore = server.watches.length;
    server.dropWatches();
    await h.until('the watches to resume', () => server.watches.length >= watchesBefore + 4);
    expect(server.watches.slice(watchesBefore).every((w) => Number(w.resourceVersion) > 0)).toBe(true);

    server.compact();
    server.failLists(2);
    server.dropWatches();
    server.create('servers', 'default', cr('Server', 'after-gone', { provider: 'sandbox', region: 'eu-1', size: 'small' }));
    await h.until('the server created after 410 Gone to be synced', () => h.find('Server', 'after-gone') !== undefined, 20_000);
    expect(logs).toContainEqual(expect.stringMatching(/watching \w+ failed \(HTTP 500: injected list failure\); retrying in 250 ms/));
  });

  it('lets only the Lease holder reconcile, and hands over when it stops', async () => {
    api = await startFakeKubeApiServer();
    const server = api;
    const logsA: string[] = [];
    const logsB: string[] = [];
    const a = startMode(server, 'replica-a', logsA);
    const b = startMode(server, 'replica-b', logsB);
    const h = harness();
    await h.until('one leader', () => a.isLeader() !== b.isLeader());
    const [leader, follower, followerLogs] = a.isLeader() ? [a, b, logsB] : [b, a, logsA];
    // Several renewals (every 100 ms) pass; the follower never leads meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(leader.isLeader() && !follower.isLeader()).toBe(true);
    expect(followerLogs.filter((l) => l.includes(' leads '))).toEqual([]);
    await leader.stop();
    await h.until('the other replica to take the Lease over', () => follower.isLeader(), 10_000);
    expect(followerLogs.filter((l) => l.includes(' leads '))).toHaveLength(1);
  });
});
