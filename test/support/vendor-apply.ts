/**
 * @module What every vendor's apply test sets up: a copy of `examples/vendors/<example>` whose
 * Provider points at the vendor's double (`spec.endpoint`), a data dir, and the real CLI run
 * with the example's credentials variable; after the file's tests, the double is expected to
 * have seen nothing outside the vendor's document, and is stopped.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { REPO_ROOT, runCairn } from './cairn-process.js';

interface ApplyDouble {
  url: string;
  violations: string[];
  stop(): Promise<void>;
}

export interface VendorApply<D> {
  /** The copied example, its Provider pointed at the double. */
  dir: string;
  dataDir: string;
  /** The double, once started (in beforeAll). */
  readonly double: D;
  /** The CLI with these arguments, on the test's data dir and the example's credentials. */
  apply: (...args: string[]) => ReturnType<typeof runCairn>;
}

export function vendorApplySetup<D extends ApplyDouble>(options: { example: string; title: string; env: Record<string, string>; start(): Promise<D> }): VendorApply<D> {
  const root = mkdtempSync(join(tmpdir(), `cairn-${options.example}-apply-`));
  const dir = join(root, 'manifests');
  const dataDir = join(root, 'state');
  let started: D | undefined;
  beforeAll(async () => {
    started = await options.start();
    cpSync(join(REPO_ROOT, 'examples', 'vendors', options.example), dir, { recursive: true });
    const provider = join(dir, 'provider.yaml');
    writeFileSync(provider, `${readFileSync(provider, 'utf8')}  endpoint: ${started.url}\n`);
  }, 60_000); // a large document (IONOS's) takes seconds to load
  afterAll(async () => {
    if (started) {
      expect(started.violations, `requests or answers outside ${options.title}’s document`).toEqual([]);
      await started.stop();
    }
    rmSync(root, { recursive: true, force: true });
  });
  return {
    dir,
    dataDir,
    get double(): D {
      if (!started) throw new Error(`the ${options.title} double is not started yet`);
      return started;
    },
    apply: (...args) => runCairn([...args, '--data-dir', dataDir], { env: { ...options.env, CAIRN_POLL_MS: '100' }, timeoutMs: 120_000 }),
  };
}
