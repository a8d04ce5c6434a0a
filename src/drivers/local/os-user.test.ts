import { describe, expect, it } from 'vitest';
import { appOsUser, lookUpOsUser } from './os-user.js';

describe('who apps run as', () => {
  it('is nobody when cairn is root, and never root', () => {
    expect(appOsUser({}, true)).toEqual(lookUpOsUser('nobody'));
    expect(appOsUser({}, true)?.uid).not.toBe(0);
    expect(() => appOsUser({ CAIRN_APP_USER: 'root' }, true)).toThrow(/CAIRN_APP_USER names "root", which is root; apps and their builds never run as root/);
    expect(() => appOsUser({ CAIRN_APP_USER: 'no-such-user-here' }, true)).toThrow(/"no-such-user-here" to run them as does not exist.*useradd --system no-such-user-here/);
  });

  it("is cairn's own user when cairn is not root", () => {
    expect(appOsUser({ CAIRN_APP_USER: 'root' }, false)).toBeUndefined();
  });
});
