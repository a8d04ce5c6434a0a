/**
 * @module The reconcile loop's knobs from the environment: the drift-check interval for all kinds
 * and per kind, and a clear error for a value that is not a positive number.
 */
import { describe, expect, it } from 'vitest';
import { controllerOptionsFromEnv } from './controller-options.js';

describe('controllerOptionsFromEnv', () => {
  it('leaves the resync interval to the controller when nothing is set', () => {
    expect(controllerOptionsFromEnv('/d', {}).resyncMs).toBeUndefined();
  });

  it('takes CAIRN_RESYNC_MS for every kind and CAIRN_RESYNC_MS_<KIND> over it', () => {
    expect(controllerOptionsFromEnv('/d', { CAIRN_RESYNC_MS: '60000', CAIRN_RESYNC_MS_SERVER: '5000' }).resyncMs).toEqual({ Provider: 60000, SSHKey: 60000, Server: 5000, Database: 60000, App: 60000, AlertRule: 60000 });
    expect(controllerOptionsFromEnv('/d', { CAIRN_RESYNC_MS_DATABASE: '7000' }).resyncMs).toEqual({ Database: 7000 });
  });

  it('refuses a value that is not a positive number, naming the variable', () => {
    expect(() => controllerOptionsFromEnv('/d', { CAIRN_RESYNC_MS_APP: 'soon' })).toThrow('CAIRN_RESYNC_MS_APP must be a positive number, got "soon"');
  });
});
