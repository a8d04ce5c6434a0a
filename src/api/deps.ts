/**
 * @module What the API's routes are built from: the store, authentication, the drivers (for
 * what is asked of a vendor directly: catalogs, tests, metrics, logs), and a nudge for the
 * reconciler so that writes are picked up without waiting for the next poll.
 */
import type { AuthService } from '../auth/auth-service.js';
import type { IdentitySignIn } from '../auth/identity-providers/identity-sign-in.js';
import type { Billing } from '../billing/billing.js';
import type { DriverPool } from '../reconcile/driver-pool.js';
import type { Store } from '../store/store.js';
import type { MigrationService } from './routes/migration-routes.js';
import type { Terminals } from './terminal/terminal-route.js';

export interface ApiDeps {
  store: Store;
  auth: AuthService;
  drivers: DriverPool;
  /** Called after each write of desired state (the in-process reconciler reads its feed now). */
  afterWrite: () => void;
  /** Asks for a git source's sync now (in-process sync loop); without it the request is only recorded for the loop's next scan. */
  requestSourceSync?: (sourceId: string) => void;
  /** Sign-in through GitHub, Google and GitLab (default: from the process's environment). */
  identitySignIn?: IdentitySignIn;
  /** Shells on servers over SSH and the sessions that hold them; without it the terminal answers 503. */
  terminals?: Terminals;
  /** Billing with Stripe, opened at start; without it billing is off (the self-hosted plan). */
  billing?: Billing;
  /** Migrations from Heroku and Railway (platforms and runner); without it the API makes its own from the environment. */
  migrations?: MigrationService;
}
