/**
 * @module WebSocket upgrades on cairn's HTTP(S) server: only the terminal path
 * (`/api/v1/servers/{id}/terminal`, and its `/v1` alias) is taken. Such a request goes through
 * the express app like any other — request id, authentication, lookups, problem answers — with
 * its socket kept on the request, so the terminal route can finish the handshake once every
 * check passed. Every other upgrade is refused with a 404 problem and the socket closed.
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, problemDocument } from '../problem.js';

const TERMINAL_PATH = /^\/(?:api\/)?v1\/servers\/[^/]+\/terminal\/?$/;
const PENDING = Symbol('cairn.pendingUpgrade');

export interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
  /** Frees the socket from the HTTP response, for the WebSocket to take it over. */
  release(): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The upgrade request's socket, when `req` is one (else undefined: a plain GET). */
export function pendingUpgrade(req: IncomingMessage): PendingUpgrade | undefined {
  return (req as IncomingMessage & { [PENDING]?: PendingUpgrade })[PENDING];
}

function refuse(socket: Duplex, detail: string): void {
  const body = JSON.stringify(problemDocument('not_found', detail));
  socket.end(
    `HTTP/1.1 404 Not Found\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Sends the terminal path's upgrades on `server` through `app`; refuses any other upgrade. */
export function serveTerminalUpgrades(server: Server, app: Handler): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!TERMINAL_PATH.test(path)) {
      refuse(socket, `no WebSocket is served at ${path}; the terminal is GET /api/v1/servers/{id}/terminal`);
      return;
    }
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    let released = false;
    (req as IncomingMessage & { [PENDING]?: PendingUpgrade })[PENDING] = {
      socket,
      head,
      release() {
        released = true;
        res.detachSocket(socket as Socket);
      },
    };
    // An answer instead of an upgrade (401, 403, 404, ...) ends the connection once sent.
    res.on('finish', () => {
      if (released) return;
      res.detachSocket(socket as Socket);
      socket.end();
    });
    app(req, res);
  });
}
