/**
 * @module A real `cairn serve --tls` with an owner's API token, and the real `kubectl` pointed
 * at it through a kubeconfig (server, the generated certificate as CA, the token) in a temp dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCairn, startServe } from './cairn-process.js';
import { kubectlBinary } from './kubectl-binary.js';

/** The kubectl the suites drive (see ./kubectl-binary.ts). */
export const KUBECTL = kubectlBinary();

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CairnForKubectl {
  base: string;
  dataDir: string;
  token: string;
  kubeconfig: string;
  /** HTTPS to cairn with the token (the REST API, as curl would). */
  https(method: string, path: string, body?: { contentType: string; text: string }): Promise<{ status: number; text: string }>;
  kubectl(args: string[], options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<KubectlResult>;
  /** Starts a long-running kubectl (e.g. `get -w`); the caller stops it. */
  spawnKubectl(args: string[]): ChildProcess;
  stop(): Promise<void>;
}

const PASSWORD = 'kubectl test password 1';

function httpsCall(base: string, ca: string, token: string | undefined, method: string, path: string, body?: { contentType: string; text: string }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, ca, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': body.contentType } : {}) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body?.text);
  });
}

export async function startCairnForKubectl(env: NodeJS.ProcessEnv = {}): Promise<CairnForKubectl> {
  const root = mkdtempSync(join(tmpdir(), 'cairn-kubectl-'));
  const dataDir = join(root, 'state');
  const { child: serve, base } = await startServe(['--tls', '--port', '0', '--data-dir', dataDir], {
    env: { CAIRN_SANDBOX_PROVISION_MS: '100', CAIRN_LOG_LEVEL: 'warn', ...env },
  });
  const caPath = join(dataDir, 'tls', 'server.crt');
  const ca = readFileSync(caPath, 'utf8');
  const added = await runCairn(['users', 'add', '--email', 'ops@example.com', '--role', 'owner', '--data-dir', dataDir], { input: `${PASSWORD}\n` });
  if (added.code !== 0) throw new Error(`users add failed: ${added.stderr}`);
  const login = await httpsCall(base, ca, undefined, 'POST', '/api/v1/auth/login', { contentType: 'application/json', text: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) });
  const access = (JSON.parse(login.text) as { access_token: string }).access_token;
  const created = await httpsCall(base, ca, access, 'POST', '/api/v1/tokens', { contentType: 'application/json', text: JSON.stringify({ name: 'kubectl', role: 'owner', expires_in_days: 1 }) });
  const token = (JSON.parse(created.text) as { token: string }).token;
  const kubeconfig = join(root, 'kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config', 'current-context: cairn',
    'clusters:', `- name: cairn`, '  cluster:', `    server: ${base}`, `    certificate-authority: ${caPath}`,
    'users:', '- name: ops', '  user:', `    token: ${token}`,
    'contexts:', '- name: cairn', '  context:', '    cluster: cairn', '    user: ops', '    namespace: default',
  ].join('\n'), { mode: 0o600 });
  const kubectlEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: root, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(root, 'cache'), ...extra });
  const spawnKubectl = (args: string[], extra?: NodeJS.ProcessEnv): ChildProcess =>
    spawn(KUBECTL, [...args, '--cache-dir', join(root, 'cache')], { cwd: REPO_ROOT, env: kubectlEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    base, dataDir, token, kubeconfig,
    https: (method, path, body) => httpsCall(base, ca, token, method, path, body),
    spawnKubectl,
    kubectl: (args, options = {}) =>
      new Promise((resolve, reject) => {
        const child = spawnKubectl(args, options.env);
        let stdout = '';
        let stderr = '';
        child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`kubectl ${args.join(' ')} did not finish\n${stdout}\n${stderr}`));
        }, options.timeoutMs ?? 60_000);
        child.once('error', reject);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      }),
    stop: async () => {
      if (serve.exitCode === null && serve.signalCode === null) {
        await new Promise<void>((resolve) => {
          serve.once('exit', () => resolve());
          serve.kill('SIGTERM');
        });
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
