/**
 * @module What every sandbox route needs: the store, how long transitions take, and the clock.
 */
import type { SandboxStore } from '../store/sandbox-store.js';

export interface RouteContext {
  store: SandboxStore;
  /** How long provisioning, power changes, database creation, backups, restores and deploys take. */
  provisionMs: number;
  now(): number;
}
