/**
 * @module `GET /servers/{id}/terminal`: a WebSocket bridged to an SSH shell on the server.
 * Every check is an HTTP answer before the upgrade: authentication (the bearer token in the
 * Authorization header, or offered as the subprotocol `cairn.bearer.<token>` by browsers), the
 * server in the caller's tenant (404), members and above (403), a provider reached over SSH
 * (409 for `local` and `sandbox`), room for another session (429). `?session=<id>` reattaches to
 * the caller's own session on that server (404 otherwise); it grants nothing by itself.
 */
import { Router, type RequestHandler } from 'express';
import type { ClientChannel } from 'ssh2';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { roleAllows } from '../../auth/roles.js';
import { CairnError, ConflictError, ForbiddenError, MalformedRequestError } from '../../model/errors.js';
import type { StoredResource } from '../../model/resource.js';
import { VendorRejectedError, VendorUnavailableError } from '../../drivers/errors.js';
import { principalOf } from '../authentication.js';
import type { ApiDeps } from '../deps.js';
import { sendProblem } from '../problem.js';
import { ResourceLookup } from '../records/lookup.js';
import { pathId } from '../respond.js';
import {
  bearerFromSubprotocols,
  ControlMessageError,
  offeredSubprotocols,
  parseClientControl,
  POLICY_VIOLATION,
  TERMINAL_SUBPROTOCOL,
  type ServerControl,
  type TerminalSize,
} from './terminal-protocol.js';
import type { TerminalAttachment, TerminalOwner, TerminalSession, TerminalSessions } from './terminal-sessions.js';
import { pendingUpgrade } from './terminal-upgrade.js';

/** The size a shell starts with until the client sends `resize`. */
export const INITIAL_SIZE: TerminalSize = { cols: 80, rows: 24 };
/** Terminal input is keystrokes and pastes: a frame over 1 MiB is refused by the WebSocket. */
const MAX_FRAME_BYTES = 1024 * 1024;
/** WebSocket close code: another connection reattached to this session. */
const REPLACED = 4000;

/** Where shells come from: an SSH PTY channel on the server (production: ssh-shells.ts). */
export interface ShellSource {
  shellFor(server: StoredResource<'Server'>, provider: StoredResource<'Provider'>, size: TerminalSize): Promise<ClientChannel>;
}

export interface Terminals {
  shells: ShellSource;
  sessions: TerminalSessions;
}

/** Vendors whose servers cairn does not open a shell on, and why. */
const NO_TERMINAL: Record<string, string> = {
  local: "the local vendor's server is cairn's own host: use a shell on the host itself; cairn does not give tenants a shell on its own host",
  sandbox: 'sandbox servers are simulated: there is no machine to open a shell on',
};

/**
 * Browsers cannot set headers on a WebSocket: on an upgrade without an Authorization header, a
 * bearer token offered as the subprotocol `cairn.bearer.<token>` stands for it. Never a query
 * parameter (URLs are logged). Mount before authenticate().
 */
export const bearerFromWebSocketSubprotocol: RequestHandler = (req, _res, next) => {
  if (req.headers.authorization === undefined && pendingUpgrade(req)) {
    const token = bearerFromSubprotocols(offeredSubprotocols(req.headers['sec-websocket-protocol']));
    if (token !== undefined) req.headers.authorization = `Bearer ${token}`;
  }
  next();
};

function send(ws: WebSocket, message: ServerControl): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

/** A close reason fits in 123 bytes. */
function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/** Carries one WebSocket's traffic to and from a session until either ends. */
function bridge(ws: WebSocket, session: TerminalSession, expiresInSeconds: number): void {
  const attachment: TerminalAttachment = {
    output(data) {
      if (ws.readyState === ws.OPEN) ws.send(data, { binary: true });
    },
    exited(code) {
      send(ws, { type: 'exit', code: code ?? -1 });
      ws.close(1000, 'the shell exited');
    },
    replaced() {
      ws.close(REPLACED, 'this session was reattached from another connection');
    },
  };
  ws.on('error', () => ws.terminate());
  ws.on('close', () => session.detach(attachment));
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      session.input(asBuffer(data));
      return;
    }
    try {
      const control = parseClientControl(asBuffer(data).toString('utf8'));
      session.resize(control);
    } catch (error) {
      if (!(error instanceof ControlMessageError)) throw error;
      ws.close(POLICY_VIOLATION, closeReason(error.message));
    }
  });
  send(ws, { type: 'session', id: session.id, expires_in_seconds: expiresInSeconds });
  if (session.ended) {
    attachment.exited(null);
    return;
  }
  const scrollback = session.attach(attachment);
  if (scrollback.length > 0) ws.send(scrollback, { binary: true });
}

export function terminalRoutes(deps: ApiDeps): Router {
  const router = Router();
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    handleProtocols: (offered) => (offered.has(TERMINAL_SUBPROTOCOL) ? TERMINAL_SUBPROTOCOL : false),
  });
  // The 101 carries the request id like every other answer.
  sockets.on('headers', (headers, req) => {
    const id = (req as { id?: unknown }).id;
    if (typeof id === 'string') headers.push(`X-Request-Id: ${id}`);
  });

  router.get('/servers/:id/terminal', async (req, res) => {
    const principal = principalOf(res);
    if (!roleAllows(principal.role, 'write')) throw new ForbiddenError(`role ${principal.role} may not open a terminal on a server; members and above may`);
    const lookup = new ResourceLookup(deps.store, principal.tenant);
    const server = lookup.byId('Server', pathId(req));
    const providerId = lookup.idOf('Provider', server.spec.provider, server.namespace);
    if (!providerId) throw new ConflictError(`server ${server.name}'s provider ${server.spec.provider} does not exist`);
    const provider = lookup.byId('Provider', providerId);
    const refusal = NO_TERMINAL[provider.spec.vendor];
    if (refusal) throw new ConflictError(`server ${server.name} has no terminal: ${refusal}`);
    if (!server.status.externalId) throw new ConflictError(`server ${server.name} does not exist at its provider yet (status ${server.status.phase}); its terminal opens once it does`);
    const upgrade = pendingUpgrade(req);
    const offered = offeredSubprotocols(req.headers['sec-websocket-protocol']);
    if (!upgrade || !offered.includes(TERMINAL_SUBPROTOCOL)) {
      throw new MalformedRequestError(`this path opens a WebSocket: send a GET with Upgrade: websocket and Sec-WebSocket-Protocol: ${TERMINAL_SUBPROTOCOL}`);
    }
    const terminals = deps.terminals;
    if (!terminals) {
      sendProblem(req, res, 'internal', 'terminal not configured: this cairn was started without a source of SSH shells', undefined, 503);
      return;
    }
    const owner: TerminalOwner = { tenant: principal.tenant, user: principal.userId ?? principal.subject, serverId: server.uid, actor: principal.subject };
    const wanted = req.query.session;
    if (wanted !== undefined && (typeof wanted !== 'string' || wanted === '')) throw new MalformedRequestError('session: give one session id, as the server sent it in its "session" message');
    let session: TerminalSession;
    if (typeof wanted === 'string') {
      session = terminals.sessions.find(owner, wanted);
    } else {
      terminals.sessions.checkRoom(owner);
      let channel: ClientChannel;
      try {
        channel = await terminals.shells.shellFor(server, provider, INITIAL_SIZE);
      } catch (error) {
        if (error instanceof CairnError || error instanceof VendorRejectedError || error instanceof VendorUnavailableError) throw error;
        throw new VendorUnavailableError(`cannot open a shell on server ${server.name} over SSH: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      session = terminals.sessions.open(owner, channel);
    }
    upgrade.release();
    req.log.info({ server: server.uid, session: session.id }, 'terminal connected');
    const reattaching = typeof wanted === 'string';
    sockets.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      if (reattaching) terminals.sessions.reattached(owner, session);
      bridge(ws, session, Math.ceil(terminals.sessions.detachedTtlMs / 1000));
    });
  });

  return router;
}
