import { describe, expect, it } from 'vitest';
import { VendorRejectedError } from '../errors.js';
import { serverTarget, sshServerId, targetOfSshServerId } from './server-target.js';

describe('where a server is reached over SSH', () => {
  it('reads a bring-your-own host from its id, IPv6 included', () => {
    const target = { user: 'deploy', host: 'db1.example.com', port: 2222 };
    expect(targetOfSshServerId(sshServerId(target))).toEqual(target);
    expect(serverTarget('ssh:root@[2001:db8::1]:22', '198.51.100.1')).toEqual({ user: 'root', host: '2001:db8::1', port: 22 });
    expect(targetOfSshServerId('ssh:root@host:70000')).toBeUndefined();
    expect(targetOfSshServerId('12345')).toBeUndefined();
  });

  it('reaches a cloud vendor\'s server as root on port 22 of its address, and refuses one with no address yet', () => {
    expect(serverTarget('12345', '198.51.100.7')).toEqual({ user: 'root', host: '198.51.100.7', port: 22 });
    expect(() => serverTarget('12345', null)).toThrow(VendorRejectedError);
    expect(() => serverTarget('12345', null)).toThrow(/no public address yet/);
  });
});
