import { describe, expect, it } from 'vitest';
import { VendorRejectedError, VendorUnavailableError } from '../errors.js';
import { SshConnectError } from '../../ssh/connection-pool.js';
import { HostKeyChangedError } from '../../ssh/host-keys.js';
import { sshDriverError } from './ssh-errors.js';

describe('SSH failures as driver errors', () => {
  it('retries what may pass: an unreachable host, and a key the host does not know yet', () => {
    expect(sshDriverError(new SshConnectError('ssh to a: connection refused', true))).toBeInstanceOf(VendorUnavailableError);
    const refused = new SshConnectError('ssh to a: authentication failed', false, { refusedKey: true });
    expect(sshDriverError(refused)).toBeInstanceOf(VendorUnavailableError);
  });

  it('stalls on what only a person can settle, keeping the message', () => {
    const closed = sshDriverError(new SshConnectError('ssh to root@169.254.169.254:22: the address is closed', false));
    expect(closed).toBeInstanceOf(VendorRejectedError);
    expect((closed as Error).message).toContain('169.254.169.254');
    const changed = new HostKeyChangedError('10.0.0.1:22', 'SHA256:old', 'SHA256:new', 'delete the pin');
    expect(sshDriverError(changed)).toBeInstanceOf(VendorRejectedError);
    const other = new Error('something else');
    expect(sshDriverError(other)).toBe(other);
  });
});
