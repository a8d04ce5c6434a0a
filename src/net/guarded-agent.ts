/**
 * @module The outbound guard for clients that speak through Node's own http/https agents (the
 * vendors' official SDKs) rather than through `guardedFetch`: every connection first resolves
 * its host through `checkedAddresses`, so a closed address is refused before a byte is sent,
 * and the socket connects to the address that was checked (TLS still verifies the host's name).
 */
import type { Duplex } from 'node:stream';
import { Agent as HttpAgent, type AgentOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import { isIP, type NetConnectOpts } from 'node:net';
import { checkedAddresses } from './guarded-fetch.js';

type ConnectOptions = NetConnectOpts & { host?: string; servername?: string };
type OnCreate = (error: Error | null, socket?: Duplex) => void;
type CreateConnection = (options: ConnectOptions, oncreate: OnCreate) => Duplex | undefined;

/**
 * Wraps an agent's `createConnection`: the host is checked, then connected to by address. Node's
 * agent waits for `oncreate` when `createConnection` returns nothing.
 */
function guardConnections<A extends HttpAgent>(agent: A): A {
  const direct = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  const guarded: CreateConnection = (options, oncreate) => {
    const host = (options.host ?? 'localhost').replace(/^\[(.*)\]$/, '$1');
    checkedAddresses(host).then(
      ([address]) => {
        const named = isIP(host) === 0;
        const byAddress = { ...options, host: address!, ...(named ? { servername: options.servername ?? host } : {}) };
        let socket: Duplex | undefined;
        try {
          socket = direct(byAddress, oncreate);
        } catch (error) {
          oncreate(error as Error);
          return;
        }
        if (socket) oncreate(null, socket);
      },
      (error: Error) => oncreate(error),
    );
    return undefined;
  };
  (agent as unknown as { createConnection: CreateConnection }).createConnection = guarded;
  return agent;
}

/** An http agent whose every connection goes through the guard. */
export function guardedHttpAgent(options: AgentOptions = {}): HttpAgent {
  return guardConnections(new HttpAgent({ keepAlive: true, ...options }));
}

/** An https agent whose every connection goes through the guard (`ca` for a private authority). */
export function guardedHttpsAgent(options: HttpsAgentOptions = {}): HttpsAgent {
  return guardConnections(new HttpsAgent({ keepAlive: true, ...options }));
}
