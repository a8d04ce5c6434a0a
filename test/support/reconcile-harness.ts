/**
 * @module A reconcile loop against a sandbox cloud on loopback, in one process, for tests of
 * what the reconcilers do: a fresh data dir and controller per test, manifests to apply,
 * polling for conditions (never fixed sleeps), and calls to the sandbox's own API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Kind } from '../../src/model/kinds.js';
import type { AnyManifest, AnyStoredResource } from '../../src/model/resource.js';
import { Controller, type ControllerOptions } from '../../src/reconcile/controller.js';
import { startSandboxCloud, type SandboxCloud, type SandboxCloudOptions } from '../../src/sandbox-cloud/index.js';
import { Store } from '../../src/store/store.js';

export interface Harness {
  cloud: SandboxCloud;
  store: Store;
  controller: Controller;
  dataDir: string;
  /** The resource in the default tenant and namespace; throws when it is gone. */
  get(kind: Kind, name: string): AnyStoredResource;
  /** The resource, or undefined once it is gone. */
  find(kind: Kind, name: string): AnyStoredResource | undefined;
  apply(...manifests: AnyManifest[]): void;
  /** Polls `check` until it holds (10 s at most by default). */
  until(what: string, check: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  /** Calls the sandbox's own API; returns the status and the JSON body. */
  vendor<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

export interface HarnessOptions {
  cloud?: Partial<SandboxCloudOptions>;
  controller?: Partial<ControllerOptions>;
}

/** Registers the hooks; call the returned function inside a test for that test's harness. */
export function useReconcileHarness(options: HarnessOptions = {}): () => Harness {
  let root = '';
  let cloud: SandboxCloud | undefined;
  let current: Harness | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cairn-harness-'));
    cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 100, ...options.cloud });
  });
  afterAll(async () => {
    await cloud?.close();
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    if (!cloud) throw new Error('the sandbox cloud did not start');
    const dataDir = mkdtempSync(join(root, 'state-'));
    const store = Store.open(dataDir);
    const controller = new Controller(store, {
      dataDir,
      pollMs: 50,
      feedIntervalMs: 20,
      resyncMs: { Provider: 200, Server: 200, Database: 200, App: 200 },
      ...options.controller,
    });
    current = makeHarness(cloud, store, controller, dataDir);
  });
  afterEach(async () => {
    await current?.controller.stop();
    current?.store.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('the harness is only there inside a test');
    return current;
  };
}

function makeHarness(cloud: SandboxCloud, store: Store, controller: Controller, dataDir: string): Harness {
  const find = (kind: Kind, name: string): AnyStoredResource | undefined => store.resources.find('default', { kind, namespace: 'default', name });
  return {
    cloud,
    store,
    controller,
    dataDir,
    find,
    get(kind, name) {
      const found = find(kind, name);
      if (!found) throw new Error(`${kind}/${name} is gone`);
      return found;
    },
    apply(...manifests) {
      store.resources.apply('default', 'api', manifests);
    },
    async until(what, check, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async vendor<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(`${cloud.url}${path}`, {
        method,
        headers: { authorization: 'Bearer test', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as T };
    },
  };
}

export const isReady = (r: AnyStoredResource): boolean =>
  r.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') && r.status.observedGeneration === r.generation;

export function condition(r: AnyStoredResource, type: 'Ready' | 'Synced'): { reason: string; message: string } | undefined {
  return r.status.conditions.find((c) => c.type === type);
}

export const providerManifest = (endpoint: string, spec: Record<string, unknown> = {}): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Provider',
  metadata: { name: 'cloud' },
  spec: { vendor: 'sandbox', endpoint, ...spec },
});

export const serverManifest = (name: string, spec: Record<string, unknown> = {}): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Server',
  metadata: { name },
  spec: { provider: 'cloud', region: 'eu-1', size: 'small', ...spec },
});

export const databaseManifest = (name: string, server: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'Database',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { type: 'postgresql', server, version: '16', storageGb: 10, ...spec },
});

export const appManifest = (name: string, server: string, spec: Record<string, unknown> = {}): AnyManifest => ({
  apiVersion: 'cairn.dev/v1',
  kind: 'App',
  metadata: { name },
  spec: { server, source: { git: { url: 'https://git.example.com/acme/shop.git', ref: 'main' } }, command: 'node server.js', port: 8080, ...spec },
});

/**
 * A second sandbox cloud for the whole file (a second vendor beside the harness's own):
 * registers the hooks; call the returned function inside a test.
 */
export function useAnotherSandboxCloud(options: Partial<SandboxCloudOptions> = {}): () => SandboxCloud {
  let root = '';
  let cloud: SandboxCloud | undefined;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cairn-another-cloud-'));
    cloud = await startSandboxCloud({ dataDir: join(root, 'cloud'), port: 0, provisionMs: 0, ...options });
  });
  afterAll(async () => {
    await cloud?.close();
    rmSync(root, { recursive: true, force: true });
  });
  return () => {
    if (!cloud) throw new Error('the other sandbox cloud did not start');
    return cloud;
  };
}

/** The manifest under another name. */
export const renamed = (manifest: AnyManifest, name: string): AnyManifest => ({ ...manifest, metadata: { ...manifest.metadata, name } });
