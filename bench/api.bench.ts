/**
 * @module Benchmark: the REST API under load (autocannon, 50 connections, loopback): a bare
 * express hello-world as the yardstick, `GET /healthz` and the authenticated
 * `GET /api/v1/servers` (50 items) of a real compiled `cairn serve`, each server in a process of
 * its own. BENCH_API_SECONDS sets the measured seconds per target (default 10).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profilingArgs, type Benchmark } from './support/benchmark.js';
import { addOwner, applyManifests, listServers, providerAndServers, signIn, waitForRunningServers } from './support/cairn-api-setup.js';
import { atLeast, cell, count, millis, percent, verdict } from './support/figures.js';
import { measureLoad, type LoadFigures, type LoadOptions } from './support/http-load.js';
import { startListening, type ListeningProcess } from './support/listening-process.js';
import { CAIRN_BIN } from './support/repo-paths.js';

const CONNECTIONS = 50;
const DEFAULT_SECONDS = 10;
const SERVERS = 50;
const EMAIL = 'bench@example.com';
const CONVERGE_TIMEOUT_MS = 120_000;
const TARGET_RPS = 3_000;
const TARGET_P99_MS = 50;
const TARGET_SHARE_OF_BARE = 0.3;

/** The yardstick: express with one JSON route and nothing else, in a node process of its own. */
const BARE_EXPRESS = `
const express = require('express');
const app = express();
app.get('/', (req, res) => { res.json({ hello: 'world' }); });
const server = app.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

type TargetId = 'bare' | 'healthz' | 'servers';

export interface ApiTargetResult {
  id: TargetId;
  label: string;
  figures?: LoadFigures;
  /** Why it was not measured. */
  error?: string;
}

export interface ApiResult {
  connections: number;
  durationS: number;
  warmupS: number;
  /** CAIRN_LOG_LEVEL of the cairn process (its request log costs time). */
  logLevel: string;
  servers: number;
  targets: ApiTargetResult[];
  /** Authenticated list req/s over bare express req/s. */
  shareOfBare: number | null;
  goals: { requestsPerSecond: number; p99Ms: number; shareOfBare: number };
}

function secondsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_API_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_SECONDS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`BENCH_API_SECONDS must be a positive number of seconds, got "${raw}"`);
  return value;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function measureTarget(
  id: TargetId,
  label: string,
  progress: (line: string) => void,
  load: () => Promise<LoadFigures>,
): Promise<ApiTargetResult> {
  try {
    const figures = await load();
    progress(`${label}: ${count(Math.round(figures.requestsPerSecond))} req/s, p99 ${millis(figures.p99Ms)}`);
    return { id, label, figures };
  } catch (error) {
    progress(`${label}: not measured: ${message(error)}`);
    return { id, label, error: message(error) };
  }
}

async function withProcess<T>(start: () => Promise<ListeningProcess>, use: (server: ListeningProcess) => Promise<T>): Promise<T> {
  const server = await start();
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

async function run(progress: (line: string) => void): Promise<ApiResult> {
  const durationS = secondsFromEnv();
  const warmupS = Math.min(2, Math.max(1, Math.round(durationS / 5)));
  const load: LoadOptions = { connections: CONNECTIONS, durationS, warmupS };
  const targets: ApiTargetResult[] = [];

  targets.push(
    await measureTarget('bare', 'bare express hello-world', progress, () =>
      withProcess(
        () => startListening(['-e', BARE_EXPRESS]),
        (bare) => measureLoad(`${bare.url}/`, load),
      ),
    ),
  );

  const root = mkdtempSync(join(tmpdir(), 'cairn-bench-api-'));
  const healthz = 'GET /healthz';
  const list = `GET /api/v1/servers (${SERVERS} items, bearer token)`;
  try {
    const dataDir = join(root, 'data');
    const password = randomBytes(18).toString('base64url');
    const ownerFailure = await addOwner(dataDir, EMAIL, password).then(
      () => undefined,
      (error: unknown) => `setup: ${message(error)}`,
    );
    let serve: ListeningProcess;
    try {
      serve = await startListening([...profilingArgs('api-serve'), CAIRN_BIN, 'serve', '--port', '0', '--data-dir', dataDir], { env: { CAIRN_SANDBOX_PROVISION_MS: '0' } });
    } catch (error) {
      targets.push({ id: 'healthz', label: healthz, error: message(error) }, { id: 'servers', label: list, error: message(error) });
      return result(durationS, warmupS, targets);
    }
    try {
      targets.push(await measureTarget('healthz', healthz, progress, () => measureLoad(`${serve.url}/healthz`, load)));
      targets.push(
        await measureTarget('servers', list, progress, async () => {
          if (ownerFailure !== undefined) throw new Error(ownerFailure);
          try {
            const token = await signIn(serve.url, EMAIL, password);
            await applyManifests(serve.url, token, providerAndServers(SERVERS));
            await waitForRunningServers(serve.url, token, SERVERS, CONVERGE_TIMEOUT_MS);
            const items = await listServers(serve.url, token);
            if (items.length !== SERVERS) throw new Error(`GET /api/v1/servers answered ${items.length} items; expected ${SERVERS} (API.md: default limit 50)`);
            return await measureLoad(`${serve.url}/api/v1/servers`, { ...load, headers: { authorization: `Bearer ${token}` } });
          } catch (error) {
            throw new Error(`setup: ${message(error)}\ncairn serve's last lines:\n${serve.tail(6)}`, { cause: error });
          }
        }),
      );
    } finally {
      await serve.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return result(durationS, warmupS, targets);
}

function result(durationS: number, warmupS: number, targets: ApiTargetResult[]): ApiResult {
  const bare = targets.find((t) => t.id === 'bare')?.figures;
  const list = targets.find((t) => t.id === 'servers')?.figures;
  return {
    connections: CONNECTIONS,
    durationS,
    warmupS,
    logLevel: process.env.CAIRN_LOG_LEVEL || 'info (default)',
    servers: SERVERS,
    targets,
    shareOfBare: bare && list && bare.requestsPerSecond > 0 ? list.requestsPerSecond / bare.requestsPerSecond : null,
    goals: { requestsPerSecond: TARGET_RPS, p99Ms: TARGET_P99_MS, shareOfBare: TARGET_SHARE_OF_BARE },
  };
}

function format(result: ApiResult): string[] {
  const { goals } = result;
  const lines = [
    `api under load (targets for the authenticated list: ≥ ${count(goals.requestsPerSecond)} req/s, p99 < ${goals.p99Ms} ms, ≥ ${percent(goals.shareOfBare)} of bare express)`,
    `  ${cell('', 44)}  ${cell('req/s', 8, 'right')}  ${cell('p50', 8, 'right')}  ${cell('p99', 8, 'right')}  ${cell('errors', 6, 'right')}  ${cell('non-2xx', 7, 'right')}`,
  ];
  for (const t of result.targets) {
    const f = t.figures;
    if (!f) {
      lines.push(`  ${cell(t.label, 44)}  not measured`, ...(t.error ?? '').split('\n').map((l) => `  ${cell('', 44)}  ! ${l}`));
      continue;
    }
    const failed = f.errors + f.non2xx > 0 ? '   (not every answer was a 2xx: the figures do not count)' : '';
    const checks = t.id === 'servers' ? `   ${atLeast(f.requestsPerSecond, goals.requestsPerSecond)} / ${verdict(f.p99Ms, goals.p99Ms)}` : '';
    lines.push(
      `  ${cell(t.label, 44)}  ${cell(count(Math.round(f.requestsPerSecond)), 8, 'right')}  ${cell(millis(f.p50Ms), 8, 'right')}  ${cell(millis(f.p99Ms), 8, 'right')}  ${cell(count(f.errors), 6, 'right')}  ${cell(count(f.non2xx), 7, 'right')}${checks}${failed}`,
    );
  }
  lines.push(
    `  authenticated list / bare express: ${percent(result.shareOfBare)}  ${atLeast(result.shareOfBare, goals.shareOfBare)}`,
    `  autocannon in the benchmark process, ${result.connections} connections, ${result.durationS} s measured per target after a ${result.warmupS} s warm-up (BENCH_API_SECONDS);`,
    `  each server in its own node process on loopback: bare express (one JSON route), and \`node bin/cairn.js serve\` (compiled, CAIRN_LOG_LEVEL ${result.logLevel},`,
    `  sandbox provider with ${result.servers} running servers, set up through \`cairn users add\`, POST /api/v1/auth/login and POST /api/v1/manifests).`,
  );
  return lines;
}

export const apiBenchmark: Benchmark<ApiResult> = {
  name: 'api',
  description: `REST API under load: bare express, GET /healthz and the authenticated list of ${SERVERS} servers, ${CONNECTIONS} connections`,
  run,
  format,
};
