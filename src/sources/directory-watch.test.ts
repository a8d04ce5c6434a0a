/**
 * @module The directory watch does not lose a change made while cairn starts: once start()
 * has returned, a file removed at once is pruned (the watch was ready before the first read).
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import { DirectoryWatch } from './directory-watch.js';

let root: string;
let store: Store;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cairn-directory-watch-'));
  store = Store.open(join(root, 'state'));
});

afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const provider = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata: { name: sandbox }\nspec: { vendor: sandbox }\n';
const server = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata: { name: web }\nspec: { provider: sandbox, region: eu-1, size: small }\n';

function serverDeletionAsked(): boolean | undefined {
  const web = store.resources.list({ tenant: 'default', kind: 'Server' })[0];
  return web === undefined ? undefined : web.deletionTimestamp !== null;
}

describe('DirectoryWatch', () => {
  it('prunes a file removed the moment start() returns', async () => {
    const dir = join(root, 'manifests');
    mkdirSync(dir);
    writeFileSync(join(dir, 'provider.yaml'), provider);
    writeFileSync(join(dir, 'server.yaml'), server);
    const reports: string[] = [];
    const watch = new DirectoryWatch(store, dir, { tenant: 'default', debounceMs: 20, onReport: (line) => reports.push(line) });
    try {
      await watch.start();
      expect(serverDeletionAsked()).toBe(false);
      unlinkSync(join(dir, 'server.yaml'));
      const deadline = Date.now() + 10_000;
      while (serverDeletionAsked() === false && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(serverDeletionAsked(), reports.join('\n')).not.toBe(false);
      expect(reports.at(-1)).toMatch(/pruned .*web/);
    } finally {
      await watch.stop();
    }
  });
});
