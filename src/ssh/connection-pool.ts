/**
 * @module The SSH connections cairn holds: ONE multiplexed ssh2 Client per `user@host:port`
 * and identity, shared by every caller (and by their in-flight connect). A dropped connection
 * is made again on next use, retrying refused or timed-out attempts with backoff; a connection
 * unused for `idleMs` is closed; `close()` closes them all. Host keys are checked against the
 * caller's pins (trust on first use) before anything is sent, on every connect and every
 * `session()` call. Connect errors are mapped to messages a user can act on.
 *
 * Every connect first passes the outbound guard (src/net/guarded-fetch.ts, the same one HTTP to
 * a tenant's URL passes): the host name is resolved here, a closed address (loopback, private,
 * link-local, metadata...) is refused unless CAIRN_ALLOW_PRIVATE_ENDPOINTS opens it, and ssh2
 * connects to the address checked, so a name cannot resolve one way for the check and another
 * for the connection. Host keys stay pinned by the name the caller gave.
 */
import ssh2, { type Client, type ClientErrorExtensions, type ParsedKey } from 'ssh2';
import { fingerprintOfKeyBlob, hostIdOf, verifyHostKey, HostKeyChangedError, type HostKeyPins } from './host-keys.js';
import { SshSession, type ConnectionLender } from './session.js';
import { checkedAddresses } from '../net/guarded-fetch.js';

export interface SshTarget {
  host: string;
  port: number;
  user: string;
}

export interface SshIdentity {
  /** The private key: OpenSSH format, or PKCS#1 PEM for RSA (not PKCS#8 "BEGIN PRIVATE KEY", which ssh2 cannot read). */
  privateKey: string;
  passphrase?: string;
}

export interface SshConnectionsOptions {
  /** How long one connect (TCP + handshake + auth) may take (default 10 s). */
  connectTimeoutMs?: number;
  /** Connect attempts for refused, reset or timed-out connections (default 3). */
  connectAttempts?: number;
  /** The delay before the second attempt, doubled for each next one (default 250 ms). */
  retryDelayMs?: number;
  /** A connection with no operation for this long is closed (default 60 s). */
  idleMs?: number;
  /** SSH keepalive interval (default 15 s; 3 unanswered drop the connection). */
  keepaliveIntervalMs?: number;
  /**
   * Before each connect: the address to connect to for a host (name or IP), or a rejection that
   * refuses the connection. Default: the outbound guard (`checkedAddresses`), its first address.
   */
  resolveTarget?: (host: string) => Promise<string>;
}

/** The outbound guard, as the pool's default `resolveTarget`: the first address `host` may be reached at. */
export async function guardedAddressOf(host: string): Promise<string> {
  const [address] = await checkedAddresses(host);
  return address!;
}

/** Connecting failed: the message says why (refused, timed out, auth failed, ...). */
export class SshConnectError extends Error {
  /** The host refused the key: it does not (yet) have it in the user's authorized_keys. */
  readonly refusedKey: boolean;

  constructor(message: string, readonly retryable: boolean, options?: { cause?: unknown; refusedKey?: boolean }) {
    super(message, options);
    this.name = 'SshConnectError';
    this.refusedKey = options?.refusedKey ?? false;
  }
}

interface PooledConnection {
  readonly key: string;
  client?: Client;
  connecting?: Promise<Client>;
  /** The host key fingerprint the live connection presented. */
  presented?: string;
  active: number;
  lastUsed: number;
}

/** The fingerprint of an identity's public half, as `ssh-keygen -l` prints it; throws, saying which formats work, for a key ssh2 cannot read. */
export function identityFingerprint(identity: SshIdentity): string {
  const parsed = ssh2.utils.parseKey(identity.privateKey, identity.passphrase);
  if (parsed instanceof Error) {
    const pkcs8 = /-----BEGIN (ENCRYPTED )?PRIVATE KEY-----/.test(identity.privateKey);
    throw new Error(
      `the SSH private key cannot be read: ${parsed.message}` +
        (pkcs8
          ? ' (it is PKCS#8 PEM, "BEGIN PRIVATE KEY", which ssh2 does not read: use the OpenSSH format, "BEGIN OPENSSH PRIVATE KEY", e.g. from ssh2.utils.generateKeyPairSync or ssh-keygen, or PKCS#1 PEM for RSA)'
          : ' (ssh2 reads OpenSSH-format keys, "BEGIN OPENSSH PRIVATE KEY", and PEM RSA, ECDSA or DSA keys)'),
    );
  }
  // ssh2 returns an array for files holding several keys (its types say one key): the first is used.
  const key: ParsedKey | undefined = Array.isArray(parsed) ? (parsed as ParsedKey[])[0] : parsed;
  if (!key) throw new Error('the SSH private key cannot be read: no key found in it');
  return fingerprintOfKeyBlob(key.getPublicSSH());
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class SshConnections {
  private readonly connections = new Map<string, PooledConnection>();
  private readonly connectTimeoutMs: number;
  private readonly connectAttempts: number;
  private readonly retryDelayMs: number;
  private readonly idleMs: number;
  private readonly keepaliveIntervalMs: number;
  private readonly resolveTarget: (host: string) => Promise<string>;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  /** How many TCP connections this pool has opened (successful handshakes), for tests and metrics. */
  connectsMade = 0;

  constructor(options: SshConnectionsOptions = {}) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.connectAttempts = Math.max(1, options.connectAttempts ?? 3);
    this.retryDelayMs = options.retryDelayMs ?? 250;
    this.idleMs = options.idleMs ?? 60_000;
    this.keepaliveIntervalMs = options.keepaliveIntervalMs ?? 15_000;
    this.resolveTarget = options.resolveTarget ?? guardedAddressOf;
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(50, Math.min(this.idleMs / 2, 10_000)));
    this.sweeper.unref();
  }

  /**
   * A session on `target` as `identity`, connected now (so a refused, unreachable, unknown or
   * changed host fails here) over the shared connection; its later operations reconnect as needed.
   */
  async session(target: SshTarget, identity: SshIdentity, pins: HostKeyPins): Promise<SshSession> {
    const hostId = hostIdOf(target.host, target.port);
    const key = `${target.user}@${hostId}#${identityFingerprint(identity)}`;
    const label = `${target.user}@${hostId}`;
    const lender: ConnectionLender = {
      label,
      borrow: async () => {
        const connection = this.connections.get(key) ?? this.track(key);
        connection.active += 1;
        try {
          const client = await this.ready(connection, target, identity, pins);
          // Another caller's pins admitted this connection: check it against this caller's too.
          verifyHostKey(pins, hostId, connection.presented ?? '');
          let released = false;
          return {
            client,
            release: () => {
              if (released) return;
              released = true;
              connection.active -= 1;
              connection.lastUsed = Date.now();
            },
          };
        } catch (error) {
          connection.active -= 1;
          connection.lastUsed = Date.now();
          throw error;
        }
      },
    };
    const { release } = await lender.borrow();
    release();
    return new SshSession(lender);
  }

  /** How many connections are open now. */
  openCount(): number {
    return [...this.connections.values()].filter((c) => c.client).length;
  }

  /** Closes every connection; later `session()` calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const closing = [...this.connections.values()].map(async (connection) => {
      const client = connection.client ?? (await connection.connecting?.catch(() => undefined));
      client?.end();
    });
    this.connections.clear();
    await Promise.all(closing);
  }

  private track(key: string): PooledConnection {
    const connection: PooledConnection = { key, active: 0, lastUsed: Date.now() };
    this.connections.set(key, connection);
    return connection;
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const connection of this.connections.values()) {
      if (connection.client && connection.active === 0 && now - connection.lastUsed >= this.idleMs) {
        connection.client.end();
        connection.client = undefined;
      }
    }
  }

  private async ready(connection: PooledConnection, target: SshTarget, identity: SshIdentity, pins: HostKeyPins): Promise<Client> {
    if (this.closed) throw new Error('the SSH connections are closed');
    if (connection.client) return connection.client;
    if (!connection.connecting) {
      connection.connecting = this.connectWithRetries(connection, target, identity, pins).finally(() => {
        connection.connecting = undefined;
      });
    }
    return connection.connecting;
  }

  private async connectWithRetries(connection: PooledConnection, target: SshTarget, identity: SshIdentity, pins: HostKeyPins): Promise<Client> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const client = await this.connectOnce(connection, target, identity, pins);
        if (this.closed) {
          client.end();
          throw new Error('the SSH connections are closed');
        }
        return client;
      } catch (error) {
        const retryable = error instanceof SshConnectError && error.retryable;
        if (!retryable || attempt >= this.connectAttempts) throw error;
        await delay(this.retryDelayMs * 2 ** (attempt - 1));
      }
    }
  }

  /** The address the guard lets `target` be reached at; a refusal or a name that does not resolve is an SshConnectError naming why. */
  private async addressOf(target: SshTarget, label: string): Promise<string> {
    try {
      return await this.resolveTarget(target.host);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') {
        throw new SshConnectError(`ssh to ${label}: the host name does not resolve`, code === 'EAI_AGAIN', { cause: error });
      }
      throw new SshConnectError(`ssh to ${label}: ${(error as Error).message}`, false, { cause: error });
    }
  }

  private async connectOnce(connection: PooledConnection, target: SshTarget, identity: SshIdentity, pins: HostKeyPins): Promise<Client> {
    const hostId = hostIdOf(target.host, target.port);
    const label = `${target.user}@${hostId}`;
    const address = await this.addressOf(target, label);
    return new Promise((resolve, reject) => {
      const client = new ssh2.Client();
      let presented: string | undefined;
      let hostKeyError: HostKeyChangedError | undefined;
      let settled = false;
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        client.removeAllListeners('ready');
        client.end();
        client.destroy();
        reject(error);
      };
      const timer = setTimeout(() => fail(new SshConnectError(`ssh to ${label}: timed out after ${this.connectTimeoutMs} ms while connecting`, true)), this.connectTimeoutMs);
      client.once('ready', () => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        this.connectsMade += 1;
        connection.client = client;
        connection.presented = presented;
        connection.lastUsed = Date.now();
        resolve(client);
      });
      client.on('error', (error: Error & ClientErrorExtensions & { code?: string }) => {
        clearTimeout(timer);
        if (!settled) fail(hostKeyError ?? mapConnectError(error, label, target.user, identity));
      });
      client.once('close', () => {
        clearTimeout(timer);
        if (connection.client === client) connection.client = undefined;
        if (!settled) fail(hostKeyError ?? new SshConnectError(`ssh to ${label}: the connection closed during the handshake`, true));
      });
      try {
        client.connect({
          host: address,
          port: target.port,
          username: target.user,
          privateKey: identity.privateKey,
          passphrase: identity.passphrase,
          readyTimeout: this.connectTimeoutMs,
          keepaliveInterval: this.keepaliveIntervalMs,
          keepaliveCountMax: 3,
          hostVerifier: (keyBlob: Buffer): boolean => {
            presented = fingerprintOfKeyBlob(keyBlob);
            try {
              verifyHostKey(pins, hostId, presented);
              return true;
            } catch (error) {
              if (error instanceof HostKeyChangedError) hostKeyError = error;
              else throw error;
              return false;
            }
          },
        });
      } catch (error) {
        fail(new SshConnectError(`ssh to ${label}: ${(error as Error).message}`, false, { cause: error }));
      }
    });
  }
}

function mapConnectError(error: Error & ClientErrorExtensions & { code?: string }, label: string, user: string, identity: SshIdentity): SshConnectError {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return new SshConnectError(`ssh to ${label}: connection refused (is sshd running and listening on that port?)`, true, { cause: error });
  if (code === 'ETIMEDOUT' || error.level === 'client-timeout') return new SshConnectError(`ssh to ${label}: timed out while connecting`, true, { cause: error });
  if (code === 'ECONNRESET' || code === 'EPIPE') return new SshConnectError(`ssh to ${label}: the connection was reset during the handshake`, true, { cause: error });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SshConnectError(`ssh to ${label}: the host name does not resolve`, code === 'EAI_AGAIN', { cause: error });
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new SshConnectError(`ssh to ${label}: the host is unreachable`, true, { cause: error });
  if (error.level === 'client-authentication') {
    let fingerprint = 'unknown';
    try {
      fingerprint = identityFingerprint(identity);
    } catch {
      // named as unknown
    }
    return new SshConnectError(
      `ssh to ${label}: authentication failed: the server refused user ${JSON.stringify(user)} with key ${fingerprint} (is that public key in the user's authorized_keys?)`,
      false,
      { cause: error, refusedKey: true },
    );
  }
  return new SshConnectError(`ssh to ${label}: ${error.message}`, false, { cause: error });
}
