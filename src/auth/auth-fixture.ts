/**
 * @module Test fixture for authentication: a fresh data dir with its own master key, an
 * AuthService on a clock the test moves, and users added through the service.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store/store.js';
import { AuthService, type AuthOptions } from './auth-service.js';
import type { Role } from './roles.js';

export const PASSWORD = 'correct horse battery staple';

export interface AuthFixture {
  dir: string;
  store: Store;
  auth: AuthService;
  /** The fixture's clock, in ms since the epoch. */
  clock: { now: number };
  advanceSeconds(seconds: number): void;
  /** Another service on the same data dir (as another process would have). */
  openAnother(options?: AuthOptions): Promise<AuthService>;
  addUser(email: string, role: Role, tenantName?: string): Promise<string>;
  close(): void;
}

export async function openAuthFixture(options: AuthOptions = {}): Promise<AuthFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-auth-'));
  const env = { CAIRN_MASTER_KEY: randomBytes(32).toString('base64') };
  const stores: Store[] = [];
  const openStore = (): Store => {
    const store = Store.open(dir, { env });
    stores.push(store);
    return store;
  };
  const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
  const now = (): number => clock.now;
  const store = openStore();
  const auth = await AuthService.open(store, { now, ...options });
  return {
    dir,
    store,
    auth,
    clock,
    advanceSeconds: (seconds) => {
      clock.now += seconds * 1000;
    },
    openAnother: (more = {}) => AuthService.open(openStore(), { now, ...more }),
    addUser: async (email, role, tenantName) => (await auth.addUser({ email, password: PASSWORD, role, tenantName })).user.id,
    close: () => {
      for (const s of stores) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
