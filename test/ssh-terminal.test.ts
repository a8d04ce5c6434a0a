/**
 * The browser terminal end to end: a real cairn API on loopback (upgrades served as `cairn
 * serve` serves them), a `ws` client, and shells on a real sshd reached through the production
 * shell source. Who may open one (401, 403, 404, 409 before any upgrade), the protocol (bytes
 * both ways, resize, 1008 on a bad control message, exit), sessions that survive a dropped
 * WebSocket (same shell, scrollback first), their end (expiry, exit: the shell's process is
 * gone), the per-user cap, and the audit rows.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApiApp } from '../src/api/app.js';
import { createMetricsRegistry } from '../src/api/metrics.js';
import { sshShellsFor } from '../src/api/terminal/ssh-shells.js';
import type { Terminals } from '../src/api/terminal/terminal-route.js';
import { TerminalSessions } from '../src/api/terminal/terminal-sessions.js';
import { serveTerminalUpgrades } from '../src/api/terminal/terminal-upgrade.js';
import { AuthService } from '../src/auth/auth-service.js';
import { sshServerId } from '../src/drivers/ssh/server-target.js';
import { createLogger } from '../src/logging/logger.js';
import type { AnyManifest } from '../src/model/resource.js';
import { driverPoolFor } from '../src/reconcile/driver-pool.js';
import { Store } from '../src/store/store.js';
import { startApiServer, type ApiServer } from './support/api-server.js';
import { validateResponse } from './support/openapi-document.js';
import { startSshRuntimeFixture, type SshRuntimeFixture } from './support/ssh-runtime-fixture.js';

const PASSWORD = 'correct horse battery staple';
const upgradeHeaders: Array<Record<string, string | string[] | undefined>> = [];

/** Polls `done` every 20 ms until it holds; throws naming `what` after `timeoutMs`. */
async function until(done: () => boolean, options: { what: string; timeoutMs?: number }): Promise<void> {
  const end = Date.now() + (options.timeoutMs ?? 10_000);
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Opened {
  ws: WebSocket;
  /** Everything the terminal sent so far (binary frames), as text. */
  output(): string;
  controls: Array<Record<string, unknown>>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
  type(text: string): void;
}

interface Refused {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

describe('the terminal: WebSocket ↔ SSH shell', () => {
  let fixture: SshRuntimeFixture;
  let dir: string;
  let store: Store;
  let server: Server;
  let base: string;
  let terminals: Terminals;
  let tenant: string;
  let auth: AuthService;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};

  function put(tenantId: string, manifest: AnyManifest, externalId?: string): string {
    const created = store.resources.create(tenantId, 'api', manifest);
    if (externalId) store.resources.writeStatus(created.uid, created.statusVersion, { ...created.status, phase: 'running', externalId });
    return created.uid;
  }

  beforeAll(async () => {
    fixture = await startSshRuntimeFixture();
    dir = mkdtempSync(join(tmpdir(), 'cairn-terminal-'));
    store = Store.open(dir, { env: { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') } });
    auth = await AuthService.open(store, {});
    const login = async (email: string, role: 'owner' | 'member' | 'viewer', tenantName?: string): Promise<string> => {
      const added = await auth.addUser({ email, password: PASSWORD, role, ...(tenantName ? { tenantName } : {}) });
      if (!tenantName) tenant = added.tenant.id;
      else ids[`tenant:${tenantName}`] = added.tenant.id;
      return (await auth.login(email, PASSWORD, '127.0.0.1', tenantName)).access_token;
    };
    tokens.member = await login('member@example.com', 'member');
    tokens.member2 = await login('member2@example.com', 'member');
    tokens.viewer = await login('viewer@example.com', 'viewer');
    tokens.other = await login('owner@other.example', 'owner', 'other');

    const provider = (name: string, vendor: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Provider', metadata: { name }, spec: { vendor } });
    const serverOn = (name: string, providerName: string): AnyManifest => ({ apiVersion: 'cairn.dev/v1', kind: 'Server', metadata: { name }, spec: { provider: providerName, region: 'here', size: 'host' } });
    put(tenant, provider('byo', 'ssh'));
    put(tenant, provider('this-host', 'local'));
    put(tenant, provider('sim', 'sandbox'));
    ids.host = put(tenant, serverOn('host', 'byo'), sshServerId(fixture.target));
    ids.local = put(tenant, serverOn('cairn-host', 'this-host'), 'local');
    ids.sandbox = put(tenant, serverOn('sim-1', 'sim'), 'sbx-1');
    put(ids['tenant:other']!, provider('byo', 'ssh'));
    ids.otherHost = put(ids['tenant:other']!, serverOn('host', 'byo'), sshServerId(fixture.target));

    // The production shell source, with the SSH access the pool gives an ssh Provider.
    terminals = { shells: sshShellsFor({ sshAccessFor: () => Promise.resolve(fixture.access) }), sessions: new TerminalSessions({ audit: store.auditLog }) };
    const app = createApiApp({
      store, auth, drivers: driverPoolFor(store, dir, 1_000), terminals,
      logger: createLogger({ level: 'silent' }), metrics: createMetricsRegistry(),
      readiness: { storeWritable: () => true, reconciling: () => true }, afterWrite: () => undefined,
    });
    server = createServer(app);
    serveTerminalUpgrades(server, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }, 60_000);

  afterAll(async () => {
    terminals?.sessions.closeAll();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await fixture?.cleanup();
  });

  /** Connects; resolves with the open terminal or the HTTP answer that refused the upgrade. */
  function connect(path: string, options: { token?: string; asSubprotocol?: boolean; protocols?: string[] } = {}): Promise<Opened | Refused> {
    const protocols = [...(options.protocols ?? ['cairn.terminal.v1'])];
    const headers: Record<string, string> = {};
    if (options.token && options.asSubprotocol) protocols.push(`cairn.bearer.${options.token}`);
    else if (options.token) headers.Authorization = `Bearer ${options.token}`;
    const ws = new WebSocket(`${base}${path}`, protocols, { headers });
    ws.once('upgrade', (res) => upgradeHeaders.push(res.headers));
    const chunks: Buffer[] = [];
    const controls: Array<Record<string, unknown>> = [];
    ws.on('message', (data, isBinary) => {
      if (isBinary) chunks.push(data as Buffer);
      else controls.push(JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown>);
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const output = (): string => Buffer.concat(chunks).toString('utf8');
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve({
        ws, output, controls, closed,
        type: (text) => ws.send(Buffer.from(text), { binary: true }),
        async waitFor(pattern, timeoutMs = 10_000) {
          await until(() => pattern.test(output()), { timeoutMs, what: `terminal output matching ${pattern}; got ${JSON.stringify(output().slice(-400))}` });
          return output();
        },
      }));
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      });
      ws.once('error', (error) => {
        if (!('status' in error)) reject(error);
      });
    });
  }

  async function open(path: string, options: Parameters<typeof connect>[1] = { token: tokens.member }): Promise<Opened> {
    const answer = await connect(path, options);
    if (!('ws' in answer)) throw new Error(`expected a terminal, got ${answer.status} ${JSON.stringify(answer.body)}`);
    await until(() => answer.controls.length > 0, { what: 'the session message' });
    return answer;
  }

  async function refused(path: string, options: Parameters<typeof connect>[1]): Promise<Refused> {
    const answer = await connect(path, options);
    if ('ws' in answer) {
      answer.ws.close();
      throw new Error(`expected a refusal of ${path}, got a terminal`);
    }
    const contentType = String(answer.headers['content-type'] ?? '');
    expect(validateResponse({ method: 'GET', path: path.split('?')[0]!, status: answer.status, contentType, body: answer.body }), `${path} → ${answer.status}`).toEqual([]);
    return answer;
  }

  const terminalPath = (id: string, session?: string): string => `/api/v1/servers/${id}/terminal${session ? `?session=${encodeURIComponent(session)}` : ''}`;

  function processesMatching(marker: string): string[] {
    try {
      return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  it('gives a member a shell: bytes both ways, the session first, resize applied, exit reported', async () => {
    const t = await open(terminalPath(ids.host!));
    expect(t.ws.protocol).toBe('cairn.terminal.v1');
    expect(upgradeHeaders.at(-1)?.['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.controls[0]).toMatchObject({ type: 'session', expires_in_seconds: 600 });
    expect(String(t.controls[0]!.id)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    t.type('echo cairn-$((6*7))\n');
    await t.waitFor(/cairn-42/);
    t.ws.send(JSON.stringify({ type: 'resize', cols: 123, rows: 45 }));
    t.type('stty size\n');
    await t.waitFor(/45 123/);
    t.type('exit 3\n');
    const closed = await t.closed;
    expect(closed.code).toBe(1000);
    expect(t.controls.at(-1)).toEqual({ type: 'exit', code: 3 });
    await until(() => terminals.sessions.size === 0, { what: 'the exited session to end' });
  });

  it('takes the bearer token as a subprotocol (browsers), echoing only cairn.terminal.v1', async () => {
    const t = await open(terminalPath(ids.host!), { token: tokens.member, asSubprotocol: true });
    expect(t.ws.protocol).toBe('cairn.terminal.v1');
    t.type('echo sub-$((2+3))\n');
    await t.waitFor(/sub-5/);
    t.type('exit\n');
    await t.closed;
  });

  it('refuses before upgrading: no token 401, viewer 403, another tenant\'s server 404, local and sandbox 409, other paths 404', async () => {
    const noToken = await refused(terminalPath(ids.host!), {});
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toContain('Bearer');
    expect(noToken.body).toMatchObject({ code: 'unauthorized' });

    const viewer = await refused(terminalPath(ids.host!), { token: tokens.viewer });
    expect(viewer.status).toBe(403);
    expect(viewer.body.detail).toMatch(/role viewer may not open a terminal/);

    const other = await refused(terminalPath(ids.otherHost!), { token: tokens.member });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'not_found' });

    const local = await refused(terminalPath(ids.local!), { token: tokens.member });
    expect(local.status).toBe(409);
    expect(local.body.detail).toMatch(/use a shell on the host itself; cairn does not give tenants a shell on its own host/);
    const sandbox = await refused(terminalPath(ids.sandbox!), { token: tokens.member });
    expect(sandbox.status).toBe(409);
    expect(sandbox.body.detail).toMatch(/simulated/);

    const noSubprotocol = await refused(terminalPath(ids.host!), { token: tokens.member, protocols: [] });
    expect(noSubprotocol.status).toBe(400);
    expect(noSubprotocol.body.detail).toMatch(/cairn\.terminal\.v1/);

    const elsewhere = await refused(`/api/v1/servers/${ids.host}`, { token: tokens.member });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.detail).toMatch(/no WebSocket is served/);
    expect(terminals.sessions.size).toBe(0);
  });

  it('answers 503 "terminal not configured" where the API was built without a source of shells', async () => {
    const bare = createApiApp({
      store, auth, drivers: driverPoolFor(store, dir, 1_000),
      logger: createLogger({ level: 'silent' }), metrics: createMetricsRegistry(),
      readiness: { storeWritable: () => true, reconciling: () => true }, afterWrite: () => undefined,
    });
    const other = createServer(bare);
    serveTerminalUpgrades(other, bare);
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const address = other.address();
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${terminalPath(ids.host!)}`, ['cairn.terminal.v1'], { headers: { Authorization: `Bearer ${tokens.member}` } });
        ws.once('open', () => reject(new Error('upgraded without a source of shells')));
        ws.once('unexpected-response', (_req, res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
      });
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.text)).toMatchObject({ status: 503, detail: expect.stringMatching(/^terminal not configured/) });
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('answers a plain GET (no upgrade) with 400 saying how to open it', async () => {
    const answer = await fetch(`${base.replace('ws:', 'http:')}${terminalPath(ids.host!)}`, { headers: { Authorization: `Bearer ${tokens.member}` } });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(((await answer.json()) as { detail: string }).detail).toMatch(/Upgrade: websocket/);
  });

  it('closes with 1008 and a reason on a control message it does not understand, keeping the shell for a reconnect', async () => {
    const t = await open(terminalPath(ids.host!));
    t.ws.send(JSON.stringify({ type: 'resize', cols: 0, rows: 24 }));
    const closed = await t.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/cols must be an integer from 1 to 1000/);
    const again = await open(terminalPath(ids.host!, String(t.controls[0]!.id)));
    again.ws.send('not json');
    expect((await again.closed).code).toBe(1008);
    terminals.sessions.closeAll();
  });

  it('reattaches a dropped connection to the same shell, scrollback first; the id is nothing to anyone else', async () => {
    const first = await open(terminalPath(ids.host!));
    const id = String(first.controls[0]!.id);
    first.type('CAIRN_MARK=kept-$((3+4)); echo before-$((1+1))\n');
    await first.waitFor(/before-2/);
    first.ws.terminate();
    await first.closed;

    const stranger = await refused(terminalPath(ids.host!, id), { token: tokens.member2 });
    expect(stranger.status).toBe(404);
    const otherTenant = await refused(terminalPath(ids.otherHost!, id), { token: tokens.other });
    expect(otherTenant.status).toBe(404);

    const again = await open(terminalPath(ids.host!, id));
    expect(again.controls[0]).toMatchObject({ type: 'session', id });
    await again.waitFor(/before-2/);
    again.type('echo mark=$CAIRN_MARK\n');
    await again.waitFor(/mark=kept-7/);

    // A second reattach takes the session over; the first connection is told why.
    const third = await open(terminalPath(ids.host!, id));
    expect((await again.closed).code).toBe(4000);
    third.type('exit\n');
    await third.closed;
    expect((await refused(terminalPath(ids.host!, id), { token: tokens.member })).status).toBe(404);
  });

  it('ends a session left detached past its window: its shell\'s process is gone and its id is a 404', async () => {
    const long = terminals.sessions;
    terminals.sessions = new TerminalSessions({ audit: store.auditLog, detachedTtlMs: 500 });
    try {
      const t = await open(terminalPath(ids.host!));
      const id = String(t.controls[0]!.id);
      expect(t.controls[0]).toMatchObject({ expires_in_seconds: 1 });
      const marker = `86400.${Date.now() % 100_000}`;
      t.type(`sleep ${marker}\n`);
      await until(() => processesMatching(`sleep ${marker}`).length > 0, { what: 'the marked sleep to run' });
      t.ws.terminate();
      await t.closed;
      await until(() => processesMatching(`sleep ${marker}`).length === 0, { timeoutMs: 10_000, what: 'the shell\'s process to end after the window' });
      expect(terminals.sessions.size).toBe(0);
      const late = await refused(terminalPath(ids.host!, id), { token: tokens.member });
      expect(late.status).toBe(404);
      expect(late.body.detail).toMatch(/connect without \?session/);
    } finally {
      terminals.sessions = long;
    }
  });

  it('ends a shell opened for a handshake that then failed (no client ever attached) after the window', async () => {
    const long = terminals.sessions;
    terminals.sessions = new TerminalSessions({ audit: store.auditLog, detachedTtlMs: 300 });
    try {
      const port = Number(new URL(base).port);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: terminalPath(ids.host!), headers: {
          Authorization: `Bearer ${tokens.member}`, Connection: 'Upgrade', Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'not a key', 'Sec-WebSocket-Protocol': 'cairn.terminal.v1',
        } });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('upgrade', () => reject(new Error('upgraded with a bad key')));
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(400);
      await until(() => terminals.sessions.size === 0, { what: 'the unattached session to expire' });
    } finally {
      terminals.sessions = long;
    }
  });

  it('holds at most N sessions per user: one more is 429', async () => {
    const long = terminals.sessions;
    terminals.sessions = new TerminalSessions({ audit: store.auditLog, maxPerUser: 2 });
    try {
      const a = await open(terminalPath(ids.host!));
      const b = await open(terminalPath(ids.host!));
      const third = await refused(terminalPath(ids.host!), { token: tokens.member });
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBeDefined();
      expect(third.body.detail).toMatch(/at most 2/);
      // Another user has room of their own.
      const other = await open(terminalPath(ids.host!), { token: tokens.member2 });
      for (const t of [a, b, other]) t.ws.close();
      terminals.sessions.closeAll();
    } finally {
      terminals.sessions = long;
    }
  });

  it('audits opened, reattached and closed with who, which server and which session, never the content', () => {
    const rows = store.auditLog.list(tenant, { limit: 200 }).items.filter((r) => r.action.startsWith('server.terminal.'));
    const actions = new Set(rows.map((r) => r.action));
    expect(actions).toEqual(new Set(['server.terminal.opened', 'server.terminal.reattached', 'server.terminal.closed']));
    for (const row of rows) {
      expect(row.target).toMatch(new RegExp(`^server:${ids.host}/terminal:[A-Za-z0-9_-]{22}$`));
      expect(row.actor).toMatch(/^user:/);
    }
    const opened = rows.filter((r) => r.action === 'server.terminal.opened').map((r) => r.target);
    const closed = rows.filter((r) => r.action === 'server.terminal.closed').map((r) => r.target);
    expect(closed.sort()).toEqual(opened.sort());
    expect(JSON.stringify(rows)).not.toMatch(/kept-7|cairn-42|echo/);
  });
});


describe('the terminal in `cairn serve`', () => {
  let api: ApiServer;
  let token: string;
  let serverId: string;

  beforeAll(async () => {
    api = await startApiServer();
    await api.addUser('member@example.com', PASSWORD, 'member');
    token = (await api.login('member@example.com', PASSWORD)).access_token;
    const provider = (await api.call('POST', '/api/v1/providers', { token, body: { name: 'sandbox', vendor: 'sandbox', credentials: { token: 'sandbox-token' } } })).body.id as string;
    serverId = (await api.call('POST', '/api/v1/servers', { token, body: { name: 'web-1', provider_id: provider, region: 'eu-1', size: 'small' } })).body.id as string;
  }, 60_000);

  afterAll(async () => {
    await api?.stop();
  });

  /** The HTTP answer to a WebSocket handshake on `path`. */
  function handshake(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const ws = new WebSocket(`${api.base.replace('http:', 'ws:')}${path}`, ['cairn.terminal.v1'], { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => reject(new Error(`${path} upgraded`)));
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
      });
      ws.once('error', (error) => {
        if (!('status' in error)) reject(error);
      });
    });
  }

  it('serves upgrades on the terminal path only, through the same checks as the API', async () => {
    expect(await handshake(`/api/v1/servers/${serverId}/terminal`)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    const sandbox = await handshake(`/v1/servers/${serverId}/terminal`, { Authorization: `Bearer ${token}` });
    expect(sandbox).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect(sandbox.body.detail).toMatch(/simulated/);
    expect(await handshake('/api/v1/servers', { Authorization: `Bearer ${token}` })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    // The server answers plain requests as before.
    expect((await api.call('GET', `/api/v1/servers/${serverId}`, { token })).status).toBe(200);
  });
});
