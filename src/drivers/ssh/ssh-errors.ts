/**
 * @module SSH failures as the reconciler reads driver errors: a host that cannot be reached or
 * does not (yet) let cairn in is retried with backoff — a server a vendor just made may answer
 * SSH before cloud-init has installed cairn's key — while a changed host key or an address the
 * outbound guard closes stalls, since only a person can settle those.
 */
import { SshConnectError } from '../../ssh/connection-pool.js';
import { HostKeyChangedError } from '../../ssh/host-keys.js';
import { VendorRejectedError, VendorUnavailableError } from '../errors.js';

/** The driver error for a failure to reach a host over SSH; anything else is returned as it is. */
export function sshDriverError(error: unknown): unknown {
  if (error instanceof HostKeyChangedError) return new VendorRejectedError(error.message, { cause: error, field: 'host' });
  if (error instanceof SshConnectError) {
    if (error.retryable || error.refusedKey) return new VendorUnavailableError(error.message, { cause: error });
    return new VendorRejectedError(error.message, { cause: error, field: 'host' });
  }
  return error;
}
