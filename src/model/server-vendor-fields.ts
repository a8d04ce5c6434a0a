/**
 * @module Which of a Server's addressing fields its Provider's vendor takes. The schema cannot
 * see the Provider, so it leaves them all optional; this check, which knows the vendor, is made
 * where the Provider is known: by `POST`/`PUT /servers` (422 naming the field) and by the server
 * reconciler (a stall naming it, whatever path the manifest came by). A server of the `ssh`
 * vendor is an existing host: it takes `host` (required), `port` and `user`, and no `region`,
 * `size`, `userData` or `sshKeys`; a server of any other vendor needs `region` and `size`, and takes no
 * `host`, `port` or `user`.
 */
import type { ServerSpec } from './generated/kinds.js';

/** The vendor whose servers are existing hosts reached over SSH. */
export const SSH_VENDOR = 'ssh';
export const DEFAULT_SSH_PORT = 22;
export const DEFAULT_SSH_USER = 'root';

export interface ServerFieldIssue {
  /** The spec field, e.g. `host`. */
  field: 'region' | 'size' | 'host' | 'port' | 'user' | 'userData' | 'sshKeys';
  message: string;
}

/** What is wrong with `spec` for a Provider `providerName` of `vendor`; empty when nothing is. */
export function serverFieldIssues(vendor: string, providerName: string, spec: ServerSpec): ServerFieldIssue[] {
  const issues: ServerFieldIssue[] = [];
  if (vendor === SSH_VENDOR) {
    if (spec.host === undefined) {
      issues.push({ field: 'host', message: `required: Provider/${providerName} is of vendor ssh, whose servers are existing hosts; name the host (a host name or IP address) cairn reaches over SSH` });
    }
    for (const field of ['region', 'size'] as const) {
      if (spec[field] !== undefined) issues.push({ field, message: `Provider/${providerName} is of vendor ssh, whose servers are existing hosts with no ${field}; leave ${field} out` });
    }
    if (spec.userData !== undefined) {
      issues.push({ field: 'userData', message: `Provider/${providerName} is of vendor ssh: an existing host has booted already and never reads user data; leave userData out` });
    }
    if ((spec.sshKeys ?? []).length > 0) {
      issues.push({ field: 'sshKeys', message: `Provider/${providerName} is of vendor ssh: an existing host keeps its own authorized_keys, which cairn does not change; add those keys there, and leave sshKeys out` });
    }
    return issues;
  }
  for (const field of ['region', 'size'] as const) {
    if (spec[field] === undefined) issues.push({ field, message: `required: Provider/${providerName} is of vendor ${vendor}, which makes its servers in a region and size it offers` });
  }
  for (const field of ['host', 'port', 'user'] as const) {
    if (spec[field] !== undefined) {
      issues.push({ field, message: `only a server of a Provider of vendor ssh (an existing host) takes ${field}; Provider/${providerName} is of vendor ${vendor}, which makes its own servers: leave ${field} out` });
    }
  }
  return issues;
}
