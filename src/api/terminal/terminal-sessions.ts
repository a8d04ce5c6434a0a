/**
 * @module Terminal sessions that outlive their WebSocket: each holds an SSH shell channel and its
 * scrollback, owned by one tenant, user and server. When the WebSocket drops the shell stays; a
 * reconnect by the same owner within the detached window (10 minutes) reattaches and first gets
 * the scrollback. A session ends when the shell exits, when it stays detached past the window,
 * or when the registry closes (the server stops); its channel is closed then. Audited: opened,
 * reattached, closed (who, which server, which session; never what went through it).
 */
import { randomBytes } from 'node:crypto';
import type { ClientChannel } from 'ssh2';
import { NotFoundError, RateLimitedError } from '../../model/errors.js';
import type { AuditEntry } from '../../store/audit-log.js';
import { Scrollback, SCROLLBACK_BYTES } from './scrollback.js';
import type { TerminalSize } from './terminal-protocol.js';

export const DETACHED_TTL_MS = 10 * 60_000;
export const MAX_SESSIONS_PER_USER = 5;

export interface TerminalOwner {
  tenant: string;
  /** The user (or, for a token without one, the token's subject) the session belongs to. */
  user: string;
  /** The Server resource's uid. */
  serverId: string;
  /** The principal's subject, for the audit log. */
  actor: string;
}

/** Where a session's output goes while a client is attached. */
export interface TerminalAttachment {
  output(data: Buffer): void;
  /** The shell ended (its exit code, null when it ended without one). */
  exited(code: number | null): void;
  /** Another connection of the same owner took the session over. */
  replaced(): void;
}

export type EndReason = 'exited' | 'expired' | 'shutdown';

export interface TerminalSessionsOptions {
  /** How long a session without a client keeps its shell (default 10 minutes). */
  detachedTtlMs?: number;
  maxPerUser?: number;
  scrollbackBytes?: number;
  audit?: { append(entry: AuditEntry): unknown };
}

export class TerminalSession {
  private attachment: TerminalAttachment | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private exitCode: number | null = null;
  private closed = false;
  private readonly scrollback: Scrollback;

  constructor(
    readonly id: string,
    readonly owner: TerminalOwner,
    private readonly channel: ClientChannel,
    scrollbackBytes: number,
    private readonly detachedTtlMs: number,
    private readonly onEnd: (session: TerminalSession, reason: EndReason) => void,
  ) {
    this.scrollback = new Scrollback(scrollbackBytes);
    const output = (data: Buffer): void => {
      this.scrollback.push(data);
      this.attachment?.output(data);
    };
    channel.on('data', output);
    channel.stderr.on('data', output);
    channel.on('exit', (code: unknown) => {
      if (typeof code === 'number') this.exitCode = code;
    });
    channel.on('close', () => this.finish('exited'));
    channel.on('error', () => this.finish('exited'));
    // Detached until a client attaches: a handshake that fails after the shell opened leaks nothing.
    this.startExpiry();
  }

  get ended(): boolean {
    return this.closed;
  }

  /** Sends output to `attachment` from now on (replacing any other); returns the scrollback so far. */
  attach(attachment: TerminalAttachment): Buffer {
    clearTimeout(this.expiry);
    this.expiry = undefined;
    const previous = this.attachment;
    this.attachment = attachment;
    if (previous && previous !== attachment) previous.replaced();
    return this.scrollback.contents();
  }

  /** The client went away: the shell stays for the detached window, then ends. */
  detach(attachment: TerminalAttachment): void {
    if (this.attachment !== attachment || this.closed) return;
    this.attachment = undefined;
    this.startExpiry();
  }

  private startExpiry(): void {
    clearTimeout(this.expiry);
    this.expiry = setTimeout(() => this.end('expired'), this.detachedTtlMs);
    this.expiry.unref();
  }

  input(data: Buffer): void {
    if (!this.closed) this.channel.write(data);
  }

  resize(size: TerminalSize): void {
    if (!this.closed) this.channel.setWindow(size.rows, size.cols, 0, 0);
  }

  /** Ends the session now: its channel is closed (the shell gets SIGHUP from sshd). */
  end(reason: EndReason): void {
    this.finish(reason);
  }

  private finish(reason: EndReason): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.expiry);
    this.channel.removeAllListeners('data');
    this.channel.stderr.removeAllListeners('data');
    this.channel.on('error', () => undefined);
    this.channel.close();
    this.attachment?.exited(this.exitCode);
    this.attachment = undefined;
    this.onEnd(this, reason);
  }
}

export class TerminalSessions {
  private readonly sessions = new Map<string, TerminalSession>();
  readonly detachedTtlMs: number;
  private readonly maxPerUser: number;
  private readonly scrollbackBytes: number;

  constructor(private readonly options: TerminalSessionsOptions = {}) {
    this.detachedTtlMs = options.detachedTtlMs ?? DETACHED_TTL_MS;
    this.maxPerUser = options.maxPerUser ?? MAX_SESSIONS_PER_USER;
    this.scrollbackBytes = options.scrollbackBytes ?? SCROLLBACK_BYTES;
  }

  /** Throws a 429 when `owner`'s user already holds the most sessions allowed. */
  checkRoom(owner: TerminalOwner): void {
    const held = [...this.sessions.values()].filter((s) => s.owner.tenant === owner.tenant && s.owner.user === owner.user).length;
    if (held >= this.maxPerUser) {
      throw new RateLimitedError(`you already hold ${held} terminal sessions (at most ${this.maxPerUser}); exit a shell, or reconnect to one with ?session=<id>`, Math.ceil(this.detachedTtlMs / 1000));
    }
  }

  /** A new session around `channel` (closed again when there is no room for it). */
  open(owner: TerminalOwner, channel: ClientChannel): TerminalSession {
    try {
      this.checkRoom(owner);
    } catch (error) {
      channel.close();
      throw error;
    }
    const id = randomBytes(16).toString('base64url');
    const session = new TerminalSession(id, owner, channel, this.scrollbackBytes, this.detachedTtlMs, (s) => this.ended(s));
    this.sessions.set(id, session);
    this.audit(owner, 'server.terminal.opened', id);
    return session;
  }

  /** `owner`'s live session `id` on that server; anything else (ended, expired, someone else's) is a 404. */
  find(owner: TerminalOwner, id: string): TerminalSession {
    const session = this.sessions.get(id);
    if (!session || session.ended || session.owner.tenant !== owner.tenant || session.owner.user !== owner.user || session.owner.serverId !== owner.serverId) {
      throw new NotFoundError('no terminal session with that id is yours on this server (it ended, expired after being detached, or belongs to someone else); connect without ?session for a new one');
    }
    return session;
  }

  /** Records that `owner` reattached to `session`. */
  reattached(owner: TerminalOwner, session: TerminalSession): void {
    this.audit(owner, 'server.terminal.reattached', session.id);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Ends every session (the server stops). */
  closeAll(): void {
    for (const session of [...this.sessions.values()]) session.end('shutdown');
  }

  private ended(session: TerminalSession): void {
    this.sessions.delete(session.id);
    this.audit(session.owner, 'server.terminal.closed', session.id);
  }

  private audit(owner: TerminalOwner, action: string, sessionId: string): void {
    this.options.audit?.append({
      tenant: owner.tenant,
      actor: owner.actor,
      action,
      target: `server:${owner.serverId}/terminal:${sessionId}`,
    });
  }
}
