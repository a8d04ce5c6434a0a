/**
 * @module Benchmark: the real kubectl against a compiled `cairn serve --tls` (no cluster):
 * wall time of `kubectl apply -f` of one file of 1,000 Servers (one create request each, the
 * reconcile loop converging them meanwhile), and of `kubectl get servers` (a Table, in
 * kubectl's default pages of 500) and `kubectl get servers -o json` over 10,000 Servers,
 * measured once the loop has converged them all.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubectlBinary } from '../test/support/kubectl-binary.js';
import type { Benchmark } from './support/benchmark.js';
import { addOwner } from './support/cairn-api-setup.js';
import { count, seconds } from './support/figures.js';
import { startListening, type ListeningProcess } from './support/listening-process.js';
import { CAIRN_BIN, REPO_ROOT } from './support/repo-paths.js';

const KUBECTL = kubectlBinary();
const APPLIED = 1_000;
const LISTED = 10_000;
const GET_RUNS = 3;
const BATCH = 1_000;
const CONVERGE_TIMEOUT_MS = 600_000;
const EMAIL = 'bench@example.com';

export interface KubectlResult {
  applied: number;
  listed: number;
  applyMs: number | null;
  /** Each run of `kubectl get servers`. */
  getTableMs: number[];
  getJsonMs: number | null;
  convergeMs: number | null;
  error?: string;
}

function https(base: string, ca: string, token: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, ca, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function expectOk(answer: Promise<{ status: number; text: string }>, what: string): Promise<string> {
  const { status, text } = await answer;
  if (status < 200 || status > 299) throw new Error(`${what} answered ${status}: ${text.slice(0, 300)}`);
  return text;
}

/** Runs kubectl to the end; its wall time in ms, or an error with its stderr. */
function timedKubectl(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(KUBECTL, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`kubectl ${args.join(' ')} exited ${String(code)}: ${stderr.slice(0, 500)}`));
    });
  });
}

function serverManifest(i: number): Record<string, unknown> {
  return { apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name: `web-${String(i).padStart(5, '0')}` }, spec: { provider: 'bench', region: 'eu-1', size: 'small', image: 'debian-12' } };
}

function yamlOf(manifests: readonly Record<string, unknown>[]): string {
  return manifests.map((m) => stringify(m)).join('---\n');
}

async function waitForRunning(base: string, ca: string, token: string, expected: number, progress: (line: string) => void): Promise<void> {
  const deadline = Date.now() + CONVERGE_TIMEOUT_MS;
  for (;;) {
    const text = await expectOk(https(base, ca, token, 'GET', '/apis/cairn.dev/v1/namespaces/default/servers'), 'GET servers');
    const items = (JSON.parse(text) as { items: Array<{ status?: { phase?: string } }> }).items;
    const running = items.filter((i) => i.status?.phase === 'running').length;
    if (items.length === expected && running === expected) return;
    if (Date.now() > deadline) throw new Error(`only ${running} of ${expected} servers running after ${CONVERGE_TIMEOUT_MS / 1000} s`);
    progress(`  ${count(running)} of ${count(expected)} running`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

async function run(progress: (line: string) => void): Promise<KubectlResult> {
  const result: KubectlResult = { applied: APPLIED, listed: LISTED, applyMs: null, getTableMs: [], getJsonMs: null, convergeMs: null };
  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-kubectl-'));
  let serve: ListeningProcess | undefined;
  try {
    const dataDir = join(root, 'data');
    const password = randomBytes(18).toString('base64url');
    await addOwner(dataDir, EMAIL, password);
    serve = await startListening([CAIRN_BIN, 'serve', '--tls', '--port', '0', '--data-dir', dataDir], { env: { CAIRN_SANDBOX_PROVISION_MS: '0', CAIRN_LOG_LEVEL: 'warn' } });
    const ca = readFileSync(join(dataDir, 'tls', 'server.crt'), 'utf8');
    const login = JSON.parse(await expectOk(https(serve.url, ca, undefined, 'POST', '/api/v1/auth/login', { email: EMAIL, password }), 'login')) as { access_token: string };
    const token = (JSON.parse(await expectOk(https(serve.url, ca, login.access_token, 'POST', '/api/v1/tokens', { name: 'bench', role: 'owner', expires_in_days: 1 }), 'POST /tokens')) as { token: string }).token;
    const kubeconfig = join(root, 'kubeconfig');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: ${serve.url}\n    certificate-authority: ${join(dataDir, 'tls', 'server.crt')}\nusers:\n- name: u\n  user:\n    token: ${token}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n    namespace: default\n`);
    const env = { PATH: process.env.PATH, HOME: root, KUBECONFIG: kubeconfig };
    const cache = ['--cache-dir', join(root, 'cache')];
    await timedKubectl(['api-resources', ...cache], env);

    const provider = { apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name: 'bench' }, spec: { vendor: 'sandbox' } };
    const file = join(root, 'servers.yaml');
    writeFileSync(file, yamlOf([provider, ...Array.from({ length: APPLIED }, (_, i) => serverManifest(i))]));
    progress(`kubectl apply -f (${count(APPLIED)} servers and a provider) ...`);
    const applied = await timedKubectl(['apply', '-f', file, ...cache], env);
    result.applyMs = applied.ms;
    progress(`  ${seconds(applied.ms)}`);

    progress(`adding ${count(LISTED - APPLIED)} more servers through POST /api/v1/manifests and waiting for all to run ...`);
    const convergeStart = performance.now();
    for (let from = APPLIED; from < LISTED; from += BATCH) {
      const manifests = Array.from({ length: Math.min(BATCH, LISTED - from) }, (_, k) => serverManifest(from + k));
      await expectOk(https(serve.url, ca, token, 'POST', '/api/v1/manifests', { manifests }), 'POST /api/v1/manifests');
    }
    await waitForRunning(serve.url, ca, token, LISTED, progress);
    result.convergeMs = performance.now() - convergeStart;

    for (let i = 0; i < GET_RUNS; i += 1) {
      const got = await timedKubectl(['get', 'servers', ...cache], env);
      const rows = got.stdout.trim().split('\n').length - 1;
      if (rows !== LISTED) throw new Error(`kubectl get servers printed ${rows} rows, expected ${LISTED}`);
      result.getTableMs.push(got.ms);
      progress(`kubectl get servers (${count(rows)} rows): ${seconds(got.ms)}`);
    }
    const json = await timedKubectl(['get', 'servers', '-o', 'json', ...cache], env);
    const items = (JSON.parse(json.stdout) as { items: unknown[] }).items.length;
    if (items !== LISTED) throw new Error(`kubectl get servers -o json listed ${items} items, expected ${LISTED}`);
    result.getJsonMs = json.ms;
    progress(`kubectl get servers -o json (${count(items)} items): ${seconds(json.ms)}`);
  } catch (error) {
    result.error = `${error instanceof Error ? error.message : String(error)}${serve ? `\ncairn serve's last lines:\n${serve.tail(6)}` : ''}`;
  } finally {
    await serve?.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return result;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? null;
}

function format(result: KubectlResult): string[] {
  return [
    `kubectl against cairn serve --tls (real kubectl, compiled cairn, loopback, sandbox provider)`,
    `  kubectl apply -f, ${count(result.applied)} servers + 1 provider (one POST each):  ${seconds(result.applyMs)}`,
    `  kubectl get servers, ${count(result.listed)} rows (Table, pages of 500): median ${seconds(median(result.getTableMs))} of ${result.getTableMs.length} (${result.getTableMs.map((ms) => seconds(ms)).join(', ')})`,
    `  kubectl get servers -o json, ${count(result.listed)} items:  ${seconds(result.getJsonMs)}`,
    `  (setup, not a figure of kubectl: ${count(result.listed - result.applied)} more servers via POST /api/v1/manifests, all ${count(result.listed)} running after ${seconds(result.convergeMs)})`,
    ...(result.error ? result.error.split('\n').map((l) => `  ! ${l}`) : []),
  ];
}

export const kubectlBenchmark: Benchmark<KubectlResult> = {
  name: 'kubectl',
  description: `real kubectl against cairn: apply -f of ${count(APPLIED)} servers, get of ${count(LISTED)}`,
  run,
  format,
};
