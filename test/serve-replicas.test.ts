/**
 * @module Two `cairn serve` replicas on one shared store: each holds a share of the shards (as
 * /readyz and /metrics say), apply follows them instead of reconciling alongside, and what runs
 * once per cluster runs on one of them; a token one issued works on the other, and a watch on one
 * streams what was written through the other. The shared store is a PostgreSQL database on loopback
 * (CAIRN_STORE=postgres://…), and the master key comes from CAIRN_MASTER_KEY, which every
 * replica must share. A long write through one store (another replica's big apply) does not cost
 * the replicas waiting for it their leases.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { runCairn, startServe, type ServeProcess } from './support/cairn-process.js';
import { startPostgresServer, type RunningPostgresServer } from './support/postgres-server.js';
import { openEventStream, watchData } from './dashboard/event-stream-client.js';
import { writeStack } from './support/manifests.js';
import pg from 'pg';
import { WRITE_LOCK_KEY } from '../src/store/pg/pg-connection.js';
import { SHARD_LEASE_TTL_MS } from '../src/reconcile/shard-ownership.js';

let root: string;
let replicas: ServeProcess[] = [];
let postgres: RunningPostgresServer | undefined;
const env: NodeJS.ProcessEnv = { CAIRN_SANDBOX_PROVISION_MS: '100', CAIRN_MASTER_KEY: randomBytes(32).toString('base64') };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cairn-serve-replicas-'));
  postgres = await startPostgresServer();
  env.CAIRN_STORE = await postgres.createDatabase();
  replicas = [];
  // One data dir for both: the in-process sandbox cloud keeps its state there (the failover test
  // runs a separate sandbox cloud and a data dir per replica).
  const args = ['--port', '0', '--data-dir', join(root, 'state')];
  for (let i = 0; i < 2; i++) replicas.push(await startServe(args, { env }));
});
afterAll(async () => {
  for (const r of replicas) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  await postgres?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function readyz(r: ServeProcess): Promise<{ status: string; shards?: number[] }> {
  return (await (await fetch(`${r.base}/readyz`)).json()) as { status: string; shards?: number[] };
}

/** Waits until the replicas hold `shares` shards (in order), all 32 between them. */
async function waitForShares(those: ServeProcess[], shares: number[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  let held: number[][] = [];
  while (Date.now() < deadline) {
    held = (await Promise.all(those.map(readyz))).map((body) => body.shards ?? []);
    if (held.map((shards) => shards.length).sort((a, b) => b - a).join() === shares.join() && new Set(held.flat()).size === 32) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(held.map((shards) => shards.length)).toEqual(shares);
}

/** Shard → fencing token, from a replica's /metrics. */
async function leaseTokens(r: ServeProcess): Promise<Map<number, number>> {
  const metrics = await (await fetch(`${r.base}/metrics`)).text();
  return new Map([...metrics.matchAll(/^cairn_shard_lease_token\{shard="(\d+)"\} (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]));
}

describe('cairn serve replicas on one store', () => {
  it('share the 32 shards, as /readyz and /metrics say', async () => {
    // The first takes all 32; it hands half back at its next lease pass (TTL/3, 5 s).
    const deadline = Date.now() + 12_000;
    let shards: number[][] = [];
    while (Date.now() < deadline) {
      shards = (await Promise.all(replicas.map(readyz))).map((body) => body.shards ?? []);
      if (shards.every((held) => held.length === 16)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(shards.map((held) => held.length)).toEqual([16, 16]);
    expect(new Set(shards.flat()).size).toBe(32);
    for (const r of replicas) {
      expect((await readyz(r)).status).toBe('ready');
      const metrics = await (await fetch(`${r.base}/metrics`)).text();
      expect(metrics).toContain('cairn_shards_held 16');
      expect(metrics).toMatch(/cairn_shard_lease_token\{shard="\d+"\} \d+/);
    }
  });

  it('runs the once-per-cluster work on one replica only', () => {
    const holding = replicas.filter((r) => r.output().includes('holding the singletons lease'));
    expect(holding).toHaveLength(1);
  });

  it('converges what apply writes; apply follows the replicas instead of reconciling alongside', async () => {
    writeStack(join(root, 'manifests'), { servers: 2, databases: 1, apps: 1 });
    const result = await runCairn(['apply', '-f', join(root, 'manifests'), '--auto-approve', '--wait', '--data-dir', join(root, 'state')], { env });
    expect(result.stderr).toMatch(/another cairn process \(pid \d+ on .*\) is reconciling this data dir; following its progress/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Apply complete: 5 ready.');
    // Without --wait, apply hands off to the replicas and names them.
    const handedOff = await runCairn(['apply', '-f', join(root, 'manifests'), '--auto-approve', '--data-dir', join(root, 'state')], { env });
    expect(handedOff.code).toBe(0);
    expect(handedOff.stdout).toMatch(/2 cairn replicas \(pid \d+ on [^,]+, pid \d+ on [^)]+\) are reconciling; add --wait to follow their progress/);
  });

  it('accept a token one of them issued, and stream on one a change written through the other', async () => {
    const added = await runCairn(['users', 'add', '--email', 'ops@example.com', '--role', 'owner', '--data-dir', join(root, 'state')], { env, input: 'a long enough password\n' });
    expect(added.code).toBe(0);
    const [one, two] = replicas as [ServeProcess, ServeProcess];
    const login = await fetch(`${one.base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password: 'a long enough password' }),
    });
    expect(login.status).toBe(200);
    const { access_token: token } = (await login.json()) as { access_token: string };
    const stream = await openEventStream(`${two.base}/api/v1/watch?kinds=providers`, token);
    try {
      expect(stream.status).toBe(200);
      const created = await fetch(`${one.base}/api/v1/providers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: 'through-one', vendor: 'sandbox', credentials: { token: 'sandbox-token' } }),
      });
      expect(created.status).toBe(201);
      const seen = await stream.next((e) => e.data !== undefined && watchData(e).type === 'ADDED' && watchData(e).object.name === 'through-one');
      expect(watchData(seen).object.id).toBe(((await created.json()) as { id: string }).id);
    } finally {
      stream.close();
    }
  });

  it('keep their shards under the same tokens while a long write elsewhere holds the store past the lease TTL', async () => {
    const before = await Promise.all(replicas.map(leaseTokens));
    expect(before.map((tokens) => tokens.size)).toEqual([16, 16]);
    // What a 10,000-resource apply does to the others: one transaction holding the write lock for seconds.
    const writer = new pg.Client({ connectionString: env.CAIRN_STORE });
    await writer.connect();
    try {
      await writer.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      await new Promise((resolve) => setTimeout(resolve, SHARD_LEASE_TTL_MS + 2_000));
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    // Their first lease passes after the wait: nothing was lost and taken again.
    await new Promise((resolve) => setTimeout(resolve, SHARD_LEASE_TTL_MS / 3 + 500));
    expect(await Promise.all(replicas.map(leaseTokens))).toEqual(before);
    for (const r of replicas) expect(r.output()).not.toMatch(/lost the singletons lease|write refused/);
  }, 40_000);

  it('take the shards of a replica killed on their host at their next lease pass, before its leases expire', async () => {
    const victim = await startServe(['--port', '0', '--data-dir', join(root, 'state')], { env });
    try {
      const everyone = [...replicas, victim];
      await waitForShares(everyone, [11, 11, 10]);
      const store = new pg.Client({ connectionString: env.CAIRN_STORE });
      await store.connect();
      let expiries: number[];
      try {
        victim.child.kill('SIGKILL');
        await new Promise((resolve) => victim.child.once('exit', resolve));
        const { rows } = await store.query<{ expires_at: string }>(`SELECT expires_at FROM shard_leases WHERE pid = $1`, [victim.child.pid]);
        expiries = rows.map((row) => Number(row.expires_at));
      } finally {
        await store.end();
      }
      expect(expiries.length).toBeGreaterThanOrEqual(10);
      await waitForShares(replicas, [16, 16]);
      // Taken because its process is gone from this host, not because its leases ran out.
      expect(Date.now()).toBeLessThan(Math.min(...expiries));
    } finally {
      if (victim.child.exitCode === null && victim.child.signalCode === null) victim.child.kill('SIGKILL');
    }
  }, 40_000);

  it('stop cleanly on SIGTERM, giving their leases back', async () => {
    const exits = replicas.map((r) => new Promise<number | null>((resolve) => r.child.once('exit', (code) => resolve(code))));
    for (const r of replicas) r.child.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual([0, 0]);
  });

  it('stops a replica, saying why, once a replica of a newer release migrated the store past it', async () => {
    const older = await startServe(['--port', '0', '--data-dir', join(root, 'state')], { env });
    const exited = new Promise<number | null>((resolve) => older.child.once('exit', (code) => resolve(code)));
    const store = new pg.Client({ connectionString: env.CAIRN_STORE });
    await store.connect();
    try {
      await waitForShares([older], [32]);
      await store.query(`UPDATE cairn_schema_version SET version = version + 1`);
      expect(await exited).toBe(1);
      expect(older.output()).toMatch(/the store's schema is at version (\d+), newer than this cairn knows \(\d+\): another replica runs a newer release; stopping this one, upgrade it/);
      // It stopped as on SIGTERM: its shards are free for the newer replicas at once.
      const { rows } = await store.query<{ held: string }>(`SELECT COUNT(*) AS held FROM shard_leases WHERE pid = $1 AND expires_at > $2`, [older.child.pid, Date.now()]);
      expect(Number(rows[0]?.held)).toBe(0);
    } finally {
      await store.end();
      if (older.child.exitCode === null) older.child.kill('SIGKILL');
    }
  }, 40_000);
});
