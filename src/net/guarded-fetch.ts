/**
 * @module The one way out to an address a tenant gave (vendor endpoints, git remotes, and what
 * comes later: webhooks, migration platforms). Every connection — the first and each one a
 * redirect leads to — resolves the host name itself, refuses if any address it resolves to is
 * closed under the operator's policy (loopback, private, link-local, metadata...), and then
 * connects to the address it checked, so a name cannot resolve one way for the check and
 * another for the connection. undici (the HTTP client) loads with the first request, so a
 * command that makes none does not pay for it.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Agent, RequestInit, Response, buildConnector } from 'undici';
import { ALLOW_PRIVATE_SETTING, currentOutboundPolicy, refusalOf } from './outbound-policy.js';

/** A connection the guard refused; the message says why and which setting opens it. */
export class OutboundRefusedError extends Error {
  override readonly name = 'OutboundRefusedError';
  readonly code = 'ERR_CAIRN_OUTBOUND_REFUSED';
}

/** The addresses `host` may be reached at; throws OutboundRefusedError when any is closed. */
export async function checkedAddresses(host: string): Promise<string[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(bare) !== 0 ? [bare] : (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
  if (addresses.length === 0) throw new OutboundRefusedError(`${host} resolves to no address`);
  const policy = currentOutboundPolicy();
  for (const address of addresses) {
    const range = refusalOf(address, policy);
    if (range !== undefined) {
      const at = address === bare ? '' : ` (it resolves to ${address})`;
      throw new OutboundRefusedError(
        `cairn does not connect to ${host}${at}: it is a ${range} address, closed to what tenants give; ` +
          `the operator can open it with ${ALLOW_PRIVATE_SETTING}=true or a list of CIDRs`,
      );
    }
  }
  return addresses;
}

interface GuardedClient {
  agent: Agent;
  fetch: typeof import('undici').fetch;
}

let guardedClient: Promise<GuardedClient> | undefined;

/** undici's fetch with an agent whose connector checks first and connects to the address it checked, by number. */
function loadGuardedClient(): Promise<GuardedClient> {
  guardedClient ??= import('undici').then((undici) => {
    const connectDirect = undici.buildConnector({ timeout: 10_000 });
    const connectChecked: buildConnector.connector = (options, callback) => {
      checkedAddresses(options.hostname).then(
        ([address]) => {
          const named = isIP(options.hostname.replace(/^\[(.*)\]$/, '$1')) === 0;
          connectDirect({ ...options, hostname: address!, ...(named ? { servername: options.servername ?? options.hostname } : {}) }, callback);
        },
        (error: Error) => callback(error, null),
      );
    };
    return { agent: new undici.Agent({ connect: connectChecked }), fetch: undici.fetch };
  });
  return guardedClient;
}

/** `fetch` for a URL a tenant gave: http(s) only, every connection through the guard. */
export async function guardedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundRefusedError(`cairn only makes http and https requests; ${parsed.protocol.replace(/:$/, '')} is not one`);
  }
  const client = await loadGuardedClient();
  return client.fetch(parsed, { ...init, dispatcher: client.agent });
}

/** The OutboundRefusedError somewhere in an error's causes, if any. */
export function outboundRefusal(error: unknown): OutboundRefusedError | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof OutboundRefusedError) return current;
  }
  return undefined;
}
