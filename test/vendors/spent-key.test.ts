/**
 * @module A pending create whose key was spent (Tencent's double): a create whose answer was lost
 * made an instance, a delete then removed it at the vendor, and the process died before its
 * records caught up; the resource is declared again. Tencent answers the pending key's
 * ClientToken with the terminated instance, so cairn starts a new incarnation under a new key
 * (event NewIncarnation) and converges to exactly one instance, instead of failing the create
 * with "no longer exists" (found by the Tencent crash test, seed 64843).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tencentVendor } from '../../src/drivers/tencent/index.js';
import { loadManifestPaths } from '../../src/model/manifest-loader.js';
import { DEFAULT_TENANT } from '../../src/model/resource.js';
import { idempotencyKey } from '../../src/reconcile/idempotency.js';
import { generateMasterKey } from '../../src/secrets/master-key.js';
import { keyringDataKeys } from '../../src/secrets/sealed-stream.js';
import { Store } from '../../src/store/store.js';
import { startTencentDouble, TENCENT_TEST_SECRET_ID } from '../doubles/tencent/index.js';
import { runCairn } from '../support/cairn-process.js';

const SECRET_KEY = 'tencent-spent-key-secret';
const root = mkdtempSync(join(tmpdir(), 'cairn-spent-key-'));
const double = await startTencentDouble({ token: SECRET_KEY, actionMs: 50 });
afterAll(async () => {
  await double.stop();
  rmSync(root, { recursive: true, force: true });
});

it('creates a new incarnation under a new key when the pending create\'s key made an instance since deleted', async () => {
  const dir = join(root, 'manifests');
  const dataDir = join(root, 'state');
  mkdirSync(dir);
  writeFileSync(join(dir, 'cairn.yaml'), [
    `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: tencent }\nspec:\n  vendor: tencent\n  endpoint: ${double.url}\n  credentialsRef: { env: TENCENTCLOUD_CREDENTIALS }\n`,
    'apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: web-1 }\nspec: { provider: tencent, region: ap-guangzhou-3, size: S5.SMALL1, image: debian-12 }\n',
  ].join('---\n'));

  // The state a crash left: the resource declared, its create pending under incarnation 0's key,
  // and what that key made already created and deleted at the vendor.
  const loaded = await loadManifestPaths([dir]);
  const store = Store.open(dataDir);
  let uid: string;
  try {
    store.resources.apply(DEFAULT_TENANT, 'api', loaded.manifests.map((m) => m.manifest));
    uid = store.resources.find(DEFAULT_TENANT, { kind: 'Server', namespace: 'default', name: 'web-1' })!.uid;
    store.operations.begin(uid, 'create', idempotencyKey(uid, 0));
  } finally {
    store.close();
  }
  const master = generateMasterKey();
  const driver = await tencentVendor.createCloudDriver({
    providerName: 'tencent', spec: { vendor: 'tencent', endpoint: double.url }, credentials: { secret_id: TENCENT_TEST_SECRET_ID, secret_key: SECRET_KEY },
    dataDir: join(root, 'driver'), requestTimeoutMs: 5_000, dataKeys: keyringDataKeys({ active: master, keys: [master] }),
  });
  const spent = await driver.servers.create(idempotencyKey(uid, 0), { name: 'web-1', region: 'ap-guangzhou-3', size: 'S5.SMALL1', image: 'debian-12' });
  await driver.servers.delete(spent.id);
  expect(double.instances()).toEqual([]);

  const env = { TENCENTCLOUD_CREDENTIALS: JSON.stringify({ secret_id: TENCENT_TEST_SECRET_ID, secret_key: SECRET_KEY }) };
  const applied = await runCairn(['apply', '-f', dir, '--auto-approve', '--wait', '--data-dir', dataDir], { env, timeoutMs: 60_000 });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  expect(double.instances().map((i) => [i.name, i.tags['cairn-key']])).toEqual([['web-1', idempotencyKey(uid, 1)]]);
  const after = Store.open(dataDir);
  try {
    const events = after.events.list({ tenant: DEFAULT_TENANT, uid });
    expect(events.find((e) => e.reason === 'NewIncarnation')?.message).toMatch(/ClientToken with instance ins-\w+, which has since been terminated; creating it again under a new idempotency key/);
    expect(after.operations.get(uid, 'create')).toBeUndefined();
  } finally {
    after.close();
  }
  expect(double.violations).toEqual([]);
});
