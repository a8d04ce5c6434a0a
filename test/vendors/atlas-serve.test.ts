/**
 * @module MongoDB Atlas end to end with a real `cairn serve` against the Atlas double:
 * examples/vendors/atlas (a Provider whose credentials are a service account and a project, and
 * a managed MongoDB Database) is applied through the API; the Provider's credentials are tested
 * through the managed service (Atlas runs no servers), the Database becomes available with the
 * credentials of the database user Atlas holds, a rotation sets the new password at Atlas, and a
 * delete takes the final snapshot first, then leaves no cluster (the snapshot stays).
 */
import { expect } from 'vitest';
import { startAtlasDouble } from '../doubles/atlas.js';
import { describeManagedDatabaseThroughServe } from '../support/managed-database-serve.js';

describeManagedDatabaseThroughServe({
  vendor: 'atlas', title: 'MongoDB Atlas', engines: ['mongodb'], example: 'atlas', rotation: 'applied', srv: true,
  async start() {
    const d = await startAtlasDouble({ token: 'atlas-serve-secret', actionMs: 300 });
    const credentials = JSON.stringify({ clientId: d.clientId, clientSecret: d.clientSecret, projectId: d.projectId });
    return {
      endpoint: d.url, env: { ATLAS_CREDENTIALS: credentials }, violations: () => d.violations, stop: () => d.stop(),
      held: () => d.clusters().filter((c) => c.state !== 'DELETING').map((c) => ({ host: `${c.name}.${c.host}`, port: 27017, username: c.name, database: 'admin', password: d.users().find((u) => u.username === c.name)?.password ?? '' })),
      checkCreated: () => expect(d.clusters()[0]).toMatchObject({ provider: 'AWS', region: 'EU_CENTRAL_1', instanceSize: 'M10', version: '7.0', tags: expect.arrayContaining([{ key: 'cairn-name', value: 'orders-db' }]) }),
      backups: () => d.snapshots().length,
    };
  },
});
