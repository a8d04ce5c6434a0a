/**
 * @module `cairn serve --kubernetes` as a real process against the test API server: it takes
 * the Lease, reconciles a custom resource and writes its status back; a kubeconfig it cannot
 * use, or --kubeconfig without --kubernetes, is refused with the reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, spawnCairn } from '../support/cairn-process.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../support/fake-kube-apiserver.js';

let root: string;
let api: FakeKubeApiServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-serve-kube-'));
  api = await startFakeKubeApiServer();
});

afterAll(async () => {
  await api.close();
  rmSync(root, { recursive: true, force: true });
});

describe('cairn serve --kubernetes', () => {
  it('reconciles the cluster\'s custom resources while it holds the Lease', async () => {
    const kubeconfig = join(root, 'kubeconfig');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: t\n  cluster:\n    server: ${api.url}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    token: test\ncontexts:\n- name: t\n  context:\n    cluster: t\n    user: u\n`);
    api.create('providers', 'default', { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'sandbox' }, spec: { vendor: 'sandbox' } });
    api.create('servers', 'default', { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: 'web-1' }, spec: { provider: 'sandbox', region: 'eu-1', size: 'small' } });
    const serve = spawnCairn(['serve', '--port', '0', '--data-dir', join(root, 'state'), '--kubernetes', '--kubeconfig', kubeconfig], { env: { CAIRN_SANDBOX_PROVISION_MS: '100', CAIRN_LOG_LEVEL: 'warn' } });
    let output = '';
    serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const deadline = Date.now() + 30_000;
      while ((api.get('servers/default/web-1')?.status as { phase?: string } | undefined)?.phase !== 'running') {
        if (Date.now() > deadline || serve.exitCode !== null) throw new Error(`web-1 did not run:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).toMatch(/kubernetes: \S+ leads \(Lease cairn-controller\)/);
      expect(api.get('servers/default/web-1')?.metadata.finalizers).toEqual(['cairn.dev/finalizer']);
    } finally {
      await new Promise<void>((resolve) => {
        if (serve.exitCode !== null) return resolve();
        serve.once('exit', () => resolve());
        serve.kill('SIGTERM');
      });
    }
  });

  it('refuses a kubeconfig it cannot use, and --kubeconfig without --kubernetes', async () => {
    const missing = await runCairn(['serve', '--port', '0', '--data-dir', join(root, 'other'), '--kubernetes', '--kubeconfig', join(root, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`--kubernetes: cannot use the kubeconfig ${join(root, 'nope')}`);
    const alone = await runCairn(['serve', '--port', '0', '--data-dir', join(root, 'other'), '--kubeconfig', join(root, 'nope')]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--kubeconfig and --namespace go with --kubernetes');
  });
});
