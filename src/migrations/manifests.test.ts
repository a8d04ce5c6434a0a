import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { validateManifest } from '../model/schema-validator.js';
import { fixedAnalysis } from './fixed-platform.fixture.js';
import { manifestsFromAnalysis, MigrationManifestError, PLACEHOLDER_SERVER, SEALED_ENV_ANNOTATION } from './manifests.js';

describe('manifestsFromAnalysis', () => {
  it('makes a Database per platform database and an App per platform app, on the server named, valid against the schemas', () => {
    const { manifests, yaml, warnings } = manifestsFromAnalysis(fixedAnalysis(), { server: 'web-1' });
    expect(manifests).toEqual([
      { apiVersion: 'cairn.dev/v1', kind: 'Database', metadata: { name: 'shop-db' }, spec: { server: 'web-1', type: 'postgresql', version: '15' } },
      {
        apiVersion: 'cairn.dev/v1',
        kind: 'App',
        metadata: { name: 'shop' },
        spec: {
          server: 'web-1',
          source: { git: { url: 'https://git.example.com/shop.git', ref: 'main' } },
          build: 'npm ci',
          command: 'node server.js',
          port: 5000,
          databases: ['shop-db'],
          healthCheck: { path: '/healthz' },
        },
      },
    ]);
    expect(warnings).toEqual([]);
    const docs = parseAllDocuments(yaml).map((d) => d.toJS() as unknown);
    expect(docs).toEqual(manifests);
    for (const doc of docs) expect(validateManifest(doc).valid).toBe(true);
  });

  it('names a placeholder server and warns when no server is given', () => {
    const { manifests, warnings } = manifestsFromAnalysis(fixedAnalysis());
    expect(manifests.map((m) => (m.spec as { server: string }).server)).toEqual([PLACEHOLDER_SERVER, PLACEHOLDER_SERVER]);
    expect(warnings[0]).toContain(`spec.server: ${PLACEHOLDER_SERVER}`);
  });

  it('uses the unpacked directory of a tarball source at migrate time and names the sealed env', () => {
    const analysis = fixedAnalysis();
    const app = { ...analysis.apps[0]!, source: { kind: 'tarball' as const, url: 'https://example.com/source.tgz' } };
    const withTarball = { ...analysis, apps: [app] };
    expect(manifestsFromAnalysis(withTarball, { server: 'web-1' }).warnings.join(' ')).toContain('source tarball');
    const { manifests } = manifestsFromAnalysis(withTarball, { server: 'web-1', sourcePaths: { shop: '/data/migration-sources/t/m/shop' }, sealedEnv: 'm-1' });
    const appManifest = manifests[1]!;
    expect(appManifest.metadata.annotations).toEqual({ [SEALED_ENV_ANNOTATION]: 'm-1' });
    expect((appManifest.spec as { source: unknown }).source).toEqual({ path: '/data/migration-sources/t/m/shop' });
  });

  it('refuses, naming the field, what the platform gave that cannot be a valid manifest', () => {
    const analysis = fixedAnalysis();
    const bad = { ...analysis, apps: [{ ...analysis.apps[0]!, port: 70000 }] };
    expect(() => manifestsFromAnalysis(bad, { server: 'web-1' })).toThrow(MigrationManifestError);
    expect(() => manifestsFromAnalysis(bad, { server: 'web-1' })).toThrow(/App\/shop .*\/spec\/port/);
  });
});
