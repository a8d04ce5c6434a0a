/**
 * @module `cairn deploy`, the command-line face of `POST /deploy`: on the data dir (reconciled
 * by the command itself) and against a running cairn (`--server URL --token T`), each waiting
 * until the resource is up and printing its id and endpoint; `-o json` prints the REST record.
 * Bad input exits 1 naming what is wrong and records nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './support/api-server.js';
import { runCairn } from './support/cairn-process.js';

const env = { CAIRN_SANDBOX_PROVISION_MS: '100' };
const PROVIDER = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: sandbox }\nspec: { vendor: sandbox }\n';

describe('cairn deploy on the data dir', () => {
  let root: string;
  let dataDir: string;
  const deploy = (...args: string[]) => runCairn(['deploy', ...args, '--data-dir', dataDir], { env, timeoutMs: 60_000 });

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cairn-deploy-'));
    dataDir = join(root, 'state');
    writeFileSync(join(root, 'provider.yaml'), PROVIDER);
    const applied = await runCairn(['apply', '-f', join(root, 'provider.yaml'), '--auto-approve', '--data-dir', dataDir], { env });
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('deploys a server, waits until it runs, and prints its id and address', async () => {
    const result = await deploy('--type', 'server', '--provider', 'sandbox', '--region', 'eu-1', '--size', 'small', '--name', 'web-1');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^id: [0-9a-f-]{36}\nendpoint: \d+\.\d+\.\d+\.\d+\n$/);
    expect(result.stderr).toContain('Server/web-1: running');
  });

  it('deploys a database onto that server by its name and prints the REST record with -o json', async () => {
    const result = await deploy('--type', 'database', '--provider', 'sandbox', '--on', 'web-1', '--engine', 'postgresql', '--db-version', '16', '--name', 'shop-db', '-o', 'json');
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(record).toMatchObject({ name: 'shop-db', status: 'available', type: 'postgresql', port: 5432 });
    expect(record.endpoint).toBe(`${String(record.host)}:5432`);
  });

  it('refuses a region and size the provider does not offer, naming the ones it does, and records nothing', async () => {
    const result = await deploy('--type', 'server', '--provider', 'sandbox', '--region', 'mars-1', '--size', 'huge', '--name', 'nowhere');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no available region "mars-1" (regions: eu-1, us-1, ap-1)');
    expect(result.stderr).toMatch(/no size "huge" \(sizes: small, medium, large/);
    const listed = await runCairn(['get', 'servers', '-o', 'json', '--data-dir', dataDir], { env });
    expect((JSON.parse(listed.stdout) as { items: Array<{ metadata: { name: string } }> }).items.map((s) => s.metadata.name)).toEqual(['web-1']);
  });

  it('says what is missing or misplaced before asking anything of the provider', async () => {
    const noSource = await deploy('--type', 'app', '--provider', 'sandbox', '--region', 'eu-1', '--size', 'small');
    expect(noSource.code).toBe(1);
    expect(noSource.stderr).toContain('/source: is required');
    expect(noSource.stderr, 'only the shape of type app is checked').not.toContain('must be "server"');
    const unknownServer = await deploy('--type', 'database', '--provider', 'sandbox', '--on', 'web-9', '--engine', 'postgresql', '--db-version', '16');
    expect(unknownServer.code).toBe(1);
    expect(unknownServer.stderr).toContain('--on: there is no Server named "web-9"');
    const misplaced = await deploy('--type', 'server', '--provider', 'sandbox', '--region', 'eu-1', '--size', 'small', '--engine', 'postgresql');
    expect(misplaced.code).toBe(1);
    expect(misplaced.stderr).toContain('--engine is for --type database, not server');
  });
});

describe('cairn deploy --server against a running cairn', () => {
  let server: ApiServer;
  let token: string;

  beforeAll(async () => {
    server = await startApiServer();
    await server.addUser('ops@example.com', 'correct horse battery', 'admin');
    token = (await server.login('ops@example.com', 'correct horse battery')).access_token;
    const provider = await server.call('POST', '/api/v1/providers', { token, body: { name: 'sandbox', vendor: 'sandbox', credentials: {} } });
    expect(provider.status, provider.text).toBe(201);
  });
  afterAll(async () => server.stop());

  const deploy = (...args: string[]) => runCairn(['deploy', ...args, '--server', server.base, '-o', 'json'], { env: { CAIRN_TOKEN: token }, timeoutMs: 60_000 });

  it('deploys through the API and follows the record until it is up', async () => {
    const result = await deploy('--type', 'server', '--provider', 'sandbox', '--region', 'us-1', '--size', 'medium', '--name', 'api-1', '--label', 'team=shop');
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(record).toMatchObject({ name: 'api-1', status: 'running', region: 'us-1', size: 'medium', labels: { team: 'shop' } });
    expect(record.endpoint).toBe(record.ipv4);
    const stored = await server.call('GET', `/api/v1/servers/${String(record.id)}`, { token });
    expect(stored.body.status).toBe('running');
  });

  it('finds the --on server by name through the API', async () => {
    const result = await deploy('--type', 'database', '--provider', 'sandbox', '--on', 'api-1', '--engine', 'postgresql', '--db-version', '16', '--name', 'api-db');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'api-db', status: 'available' });
  });

  it('shows the API’s refusal with the field it names', async () => {
    const result = await deploy('--type', 'server', '--provider', 'sandbox', '--region', 'mars-1', '--size', 'small');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('answered 422');
    expect(result.stderr).toContain('/region: provider sandbox has no available region "mars-1"');
  });

  it('refuses without a token, saying how to get one', async () => {
    const result = await runCairn(['deploy', '--type', 'server', '--provider', 'sandbox', '--region', 'eu-1', '--size', 'small', '--server', server.base], { env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'cairn-noconfig-')) } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--server needs a token');
  });
});
