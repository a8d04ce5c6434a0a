/**
 * @module The end-to-end case every vendor's managed databases share: a real `cairn serve` with
 * the vendor's example (its Provider pointed at the double, plus `database.yaml`) applied through
 * the API. The vendors list names the engines; the Database becomes available and its
 * credentials are the ones the vendor holds; a rotation either changes the password at the
 * vendor or fails saying why the vendor cannot; a plain delete stalls on the final backup
 * naming the annotation that skips it, and with `skip_final_backup` nothing is left; or, at a
 * vendor with on-demand backups, the plain delete takes the final backup first and then leaves
 * no database (the backup stays).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractProblems, startApiServer, type ApiServer } from './api-server.js';
import { REPO_ROOT } from './cairn-process.js';

/** A database as the vendor's double holds it, in the credentials' terms. */
export interface HeldDatabase {
  host: string;
  port: number;
  username: string;
  database: string;
  password: string;
}

/** The vendor's double(s), as this case needs them. */
export interface ServedVendor {
  /** The Provider's `spec.endpoint`. */
  endpoint: string;
  /** cairn's environment: the variable the example's `credentialsRef.env` names. */
  env: Record<string, string>;
  held(): HeldDatabase[];
  /** What else the vendor should hold for the example's database (its name, size, engine). */
  checkCreated(): void;
  /** Requests or answers outside the vendor's document(s). */
  violations(): string[];
  /** The backups the vendor holds, for a vendor that takes them on demand. */
  backups?(): number;
  stop(): Promise<void>;
}

export interface ManagedDatabaseServeCase {
  vendor: string;
  title: string;
  engines: readonly string[];
  /** The folder under examples/vendors/ holding provider.yaml and database.yaml. */
  example: string;
  start(): Promise<ServedVendor>;
  /** The vendor's host is a DNS SRV name: the connection string is `mongodb+srv://` without a port. */
  srv?: boolean;
  /** `applied`: cairn's new password is set at the vendor; else the refusal a rotation fails with. */
  rotation: 'applied' | RegExp;
  /** Words of the final backup's refusal that the stalled delete shows; absent when the vendor takes it (then `backups` counts it). */
  finalBackupRefusal?: string;
}

const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple' };

export function describeManagedDatabaseThroughServe(c: ManagedDatabaseServeCase): void {
  describe(`a managed database at ${c.title} through cairn serve (examples/vendors/${c.example})`, () => {
    let vendor: ServedVendor;
    let api: ApiServer;
    let token = '';

    beforeAll(async () => {
      vendor = await c.start();
      api = await startApiServer({ ...vendor.env, CAIRN_POLL_MS: '100' });
      await api.addUser(OWNER.email, OWNER.password, 'owner');
      token = (await api.login(OWNER.email, OWNER.password)).access_token;
    }, 60_000);
    afterAll(async () => {
      await api.stop();
      expect(contractProblems, 'answers outside cairn’s own OpenAPI document').toEqual([]);
      expect(vendor.violations(), `requests or answers outside ${c.title}’s document`).toEqual([]);
      await vendor.stop();
    });

    it(`lists the engines ${c.vendor} runs among the vendors`, async () => {
      const vendors = await api.call('GET', '/api/v1/providers/vendors', { token });
      expect(vendors.status).toBe(200);
      const listed = (vendors.body.items as Array<{ id: string; managed_databases: string[] }>).find((v) => v.id === c.vendor);
      expect(listed?.managed_databases).toEqual(c.engines);
    });

    const deletion = c.finalBackupRefusal === undefined
      ? 'takes the final backup when deleted and leaves only that backup'
      : 'stalls on the final backup when deleted, and leaves nothing once it is skipped';
    it(`becomes available with the credentials the vendor holds, rotates or says why not, ${deletion}`, async () => {
      const dir = join(REPO_ROOT, 'examples', 'vendors', c.example);
      const manifests = `${readFileSync(join(dir, 'provider.yaml'), 'utf8')}  endpoint: ${vendor.endpoint}\n---\n${readFileSync(join(dir, 'database.yaml'), 'utf8')}`;
      const applied = await api.call('POST', '/api/v1/manifests', { token, raw: { contentType: 'application/yaml', text: manifests } });
      expect(applied.status, applied.text).toBeLessThan(300);
      const list = await api.until<{ items: Array<{ id: string; name: string; status: string }> }>('/api/v1/databases', token, (b) => b.items.some((x) => x.name === 'orders-db' && x.status === 'available'), 30_000);
      const id = list.items.find((x) => x.name === 'orders-db')?.id ?? '';
      vendor.checkCreated();
      const held = vendor.held()[0];
      expect(held, 'the vendor holds the database').toBeDefined();
      const credentials = await api.until<{ password: string; host: string; port: number; username: string; database: string; connection_string: string }>(
        `/api/v1/databases/${id}/credentials`, token, (x) => x.host === held?.host && x.password === held.password, 20_000);
      expect(credentials).toMatchObject({ ...held });
      const at = `${encodeURIComponent(held?.username ?? '')}:${encodeURIComponent(held?.password ?? '')}@${held?.host ?? ''}`;
      expect(credentials.connection_string).toContain(c.srv === true ? `+srv://${at}/${held?.database ?? ''}` : `${at}:${held?.port ?? ''}/${held?.database ?? ''}`);

      const rotate = await api.call<{ operation_id: string }>('POST', `/api/v1/databases/${id}/credentials/rotate`, { token });
      expect(rotate.status).toBe(202);
      const rotation = await api.until<{ status: string; message: string }>(`/api/v1/operations/${rotate.body.operation_id}`, token, (o) => o.status === 'succeeded' || o.status === 'failed', 20_000);
      const after = (await api.call<{ password: string }>('GET', `/api/v1/databases/${id}/credentials`, { token })).body.password;
      if (c.rotation === 'applied') {
        expect(rotation.status, rotation.message).toBe('succeeded');
        expect(after).not.toBe(credentials.password);
        expect(vendor.held()[0]?.password, 'the new password is in force at the vendor').toBe(after);
      } else {
        expect(rotation.status).toBe('failed');
        expect(rotation.message).toMatch(c.rotation);
        expect(after, 'still the one the vendor holds').toBe(vendor.held()[0]?.password);
      }

      expect((await api.call('DELETE', `/api/v1/databases/${id}`, { token })).status).toBeLessThan(300);
      const refusal = c.finalBackupRefusal;
      if (refusal === undefined) {
        await api.until('/api/v1/databases', token, (b: { items: Array<{ name: string }> }) => !b.items.some((x) => x.name === 'orders-db'), 40_000);
        expect(vendor.held()).toEqual([]);
        expect(vendor.backups?.(), 'the final backup was taken first, and outlives the database').toBe(1);
        return;
      }
      const stalled = await api.until<{ conditions: Array<{ type: string; message: string }> }>(`/api/v1/databases/${id}`, token, (b) =>
        b.conditions.some((x) => x.message.includes(refusal)), 20_000);
      expect(stalled.conditions.map((x) => x.message).join('\n')).toMatch(/cairn\.dev\/skip-final-backup: "true"/);
      expect(vendor.held(), 'kept until the final backup is skipped').toHaveLength(1);

      expect((await api.call('DELETE', `/api/v1/databases/${id}?skip_final_backup=true`, { token })).status).toBeLessThan(300);
      await api.until('/api/v1/databases', token, (b: { items: Array<{ name: string }> }) => !b.items.some((x) => x.name === 'orders-db'), 20_000);
      expect(vendor.held()).toEqual([]);
    }, 90_000);
  });
}
