/**
 * @module Reading manifests as users write them: the quickstart examples, positions of fields,
 * multi-document files, sets of files and directories, stdin, and the checks across a set
 * (duplicate names, references), with errors in the one-line format users see.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatManifestError, wholeFileError } from './manifest-error.js';
import { loadManifestPaths, loadManifestSources } from './manifest-loader.js';
import { parseManifestText } from './manifest-parser.js';
import { checkReferences } from './manifest-references.js';
import { findPackageRoot } from './schema-files.js';

const root = findPackageRoot(import.meta.dirname);

const PROVIDER = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n';
const SERVER = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-1\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n';

function lines(result: { errors: Parameters<typeof formatManifestError>[0][] }): string[] {
  return result.errors.map(formatManifestError);
}

describe('the quickstart example', () => {
  it('loads with no errors: the local provider, this host as a server, a database and an app', async () => {
    const result = await loadManifestPaths([join(root, 'examples', 'quickstart')]);
    expect(lines(result)).toEqual([]);
    const names = result.manifests.map((m) => `${m.manifest.kind}/${m.manifest.metadata.name}`).sort();
    expect(names).toEqual(['App/shop', 'Database/shop-db', 'Provider/local', 'Server/web-1']);
    const regions = result.manifests.flatMap((m) => (m.manifest.kind === 'Server' ? [m.manifest.spec.region] : []));
    expect(regions).toEqual(['local']);
  });
});

describe('parseManifestText', () => {
  it('keeps what the user wrote: namespace filled in, no schema defaults, status dropped', () => {
    const text = `${SERVER}status: { phase: running }\n`;
    const [located] = parseManifestText(text, 'web.yaml').manifests;
    expect(located?.manifest).toEqual({
      apiVersion: 'cairn.dev/v1',
      kind: 'Server',
      metadata: { name: 'web-1', namespace: 'default' },
      spec: { provider: 'sandbox', region: 'eu-1', size: 'small' },
    });
  });

  it('skips empty documents silently but counts them in document numbers', () => {
    const result = parseManifestText(`---\n# nothing here\n---\n${PROVIDER}---\nkind: Sever\n`, 'mixed.yaml');
    expect(result.manifests.map((m) => [m.document, m.line, m.column])).toEqual([[1, 4, 1]]);
    expect(lines(result)).toEqual([
      'mixed.yaml:11:1 document 3: unknown kind "Sever"; kinds are Provider, SSHKey, Server, Database, App, AlertRule; did you mean Server?',
    ]);
  });

  it('locates fields: values, list items, and the mapping that lacks a missing field', () => {
    const text = `${PROVIDER}---\napiVersion: cairn.dev/v1\nkind: App\nmetadata:\n  name: shop\nspec:\n  server: web-1\n  source: { image: shop:1 }\n  databases:\n    - a\n    - b\n`;
    const app = parseManifestText(text, 'app.yaml').manifests[1];
    expect(app?.locate('/spec/server')).toEqual({ line: 13, column: 11 });
    expect(app?.locate('/spec/source/image')).toEqual({ line: 14, column: 20 });
    expect(app?.locate('/spec/databases/1')).toEqual({ line: 17, column: 7 });
    expect(app?.locate('/spec/port')).toEqual({ line: 13, column: 3 });
    expect(app?.locate('')).toEqual({ line: 8, column: 1 });
  });

  it('reports every problem of every document, in source order', () => {
    const text = `${PROVIDER.replace('vendor: sandbox', 'vendor: Sandbox')}---\n${SERVER.replace('size: small', 'size: small\n  cpus: 2')}`;
    expect(lines(parseManifestText(text, 'two.yaml'))).toEqual([
      "two.yaml:6:11 Provider/sandbox spec.vendor: must be a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)",
      'two.yaml:16:3 Server/web-1 spec.cpus: unknown field "cpus"',
    ]);
  });

  it('accepts anchors and aliases within the expansion limit', () => {
    const text = `${PROVIDER}---\napiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-1\n  labels: &labels { team: shop }\n  annotations: *labels\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n`;
    const result = parseManifestText(text, 'anchors.yaml');
    expect(lines(result)).toEqual([]);
    expect(result.manifests[1]?.manifest.metadata.annotations).toEqual({ team: 'shop' });
  });

  it('refuses custom tags and unknown directives', () => {
    const text = `%FOO bar\n---\n${PROVIDER.replace('vendor: sandbox', 'vendor: !vendor sandbox')}`;
    expect(lines(parseManifestText(text, 'tags.yaml'))).toEqual([
      'tags.yaml:1:1 Provider/sandbox: invalid YAML: unknown directive %FOO',
      'tags.yaml:8:11 Provider/sandbox: unsupported YAML tag !vendor; only plain strings, numbers, booleans, null, lists and mappings are allowed',
    ]);
  });

  it('refuses lists and mappings used as keys, and ignores a byte-order mark', () => {
    const text = `\uFEFF${PROVIDER.replace('spec:\n', 'spec:\n  ? [a, b]\n  : x\n')}`;
    expect(lines(parseManifestText(text, 'keys.yaml'))).toEqual(['keys.yaml:6:5 Provider/sandbox: keys must be plain strings, not a list']);
  });

  it('names resources outside the default namespace with their namespace', () => {
    const text = PROVIDER.replace('  name: sandbox\n', '  name: sandbox\n  namespace: staging\n').replace('vendor: sandbox', 'vendor: 7');
    expect(lines(parseManifestText(text, 'ns.yaml'))).toEqual([
      'ns.yaml:7:11 Provider/staging/sandbox spec.vendor: must be a string, not a number (put it in quotes: "7")',
    ]);
  });
});

describe('loadManifestSources', () => {
  it('reports a duplicate name across files, naming both places', () => {
    const result = loadManifestSources([
      { file: 'a.yaml', text: `${PROVIDER}---\n${SERVER}` },
      { file: 'b.yaml', text: SERVER },
    ]);
    expect(lines(result)).toEqual([
      'b.yaml:1:1 Server/web-1: duplicate Server "web-1" in namespace default (first defined at a.yaml:8:1)',
    ]);
    expect(result.manifests).toEqual([]);
  });

  it('allows the same name in another namespace or of another kind', () => {
    const staging = SERVER.replace('  name: web-1\n', '  name: web-1\n  namespace: staging\n').replace('provider: sandbox', 'provider: web-1');
    const providerNamedWeb1 = PROVIDER.replace('name: sandbox', 'name: web-1').replace('  name: web-1\n', '  name: web-1\n  namespace: staging\n');
    const result = loadManifestSources([{ file: 'a.yaml', text: [PROVIDER, SERVER, staging, providerNamedWeb1].join('---\n') }]);
    expect(lines(result)).toEqual([]);
    expect(result.manifests).toHaveLength(4);
  });

  it('resolves references across files, in any order', () => {
    const database = 'apiVersion: cairn.dev/v1\nkind: Database\nmetadata:\n  name: db\nspec:\n  type: postgresql\n  server: web-1\n  version: "16"\n';
    const result = loadManifestSources([
      { file: 'db.yaml', text: database },
      { file: 'servers.yaml', text: SERVER },
      { file: 'provider.yaml', text: PROVIDER },
    ]);
    expect(lines(result)).toEqual([]);
  });

  it('accepts references to resources known elsewhere (e.g. already stored)', () => {
    const result = loadManifestSources([{ file: 'web.yaml', text: SERVER }], {
      known: (kind, namespace, name) => kind === 'Provider' && namespace === 'default' && name === 'sandbox',
    });
    expect(lines(result)).toEqual([]);
  });

  it('does not report references to a document that is itself broken', () => {
    const brokenServer = SERVER.replace('size: small', 'size: small\n  cpus: 2');
    const database = 'apiVersion: cairn.dev/v1\nkind: Database\nmetadata:\n  name: db\nspec:\n  type: postgresql\n  server: web-1\n  version: "16"\n';
    expect(lines(loadManifestSources([{ file: 'a.yaml', text: [PROVIDER, brokenServer, database].join('---\n') }]))).toEqual([
      'a.yaml:16:3 Server/web-1 spec.cpus: unknown field "cpus"',
    ]);
  });

  it('orders errors by the order of the files, then by position', () => {
    const result = loadManifestSources([
      { file: 'z.yaml', text: 'kind: Nope\n' },
      { file: 'a.yaml', text: 'kind: Nope\n' },
    ]);
    expect(result.errors.map((e) => e.file)).toEqual(['z.yaml', 'a.yaml']);
  });
});

describe('checkReferences', () => {
  it('reports each list item that names a missing resource at that item', () => {
    const app = `apiVersion: cairn.dev/v1\nkind: App\nmetadata:\n  name: shop\nspec:\n  server: web-1\n  source: { path: /srv/shop }\n  databases: [one, two]\n`;
    const manifests = parseManifestText(`${PROVIDER}---\n${SERVER}---\n${app}`, 'app.yaml').manifests;
    expect(checkReferences(manifests).map(formatManifestError)).toEqual([
      'app.yaml:24:15 App/shop spec.databases[0]: Database "one" does not exist in namespace default',
      'app.yaml:24:20 App/shop spec.databases[1]: Database "two" does not exist in namespace default',
    ]);
    expect(checkReferences(manifests, (kind, _ns, name) => kind === 'Database' && name === 'one').map((e) => e.message)).toEqual([
      'Database "two" does not exist in namespace default',
    ]);
  });
});

describe('loadManifestPaths', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-manifests-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'set', 'b-servers'), { recursive: true });
  mkdirSync(join(dir, 'set', '.hidden'), { recursive: true });
  mkdirSync(join(dir, 'set', 'node_modules'), { recursive: true });
  mkdirSync(join(dir, 'empty'), { recursive: true });
  writeFileSync(join(dir, 'set', 'a-provider.yml'), PROVIDER);
  writeFileSync(join(dir, 'set', 'b-servers', 'web.yaml'), SERVER);
  writeFileSync(join(dir, 'set', 'c-notes.txt'), 'not a manifest');
  writeFileSync(join(dir, 'set', '.hidden', 'x.yaml'), 'kind: Nope\n');
  writeFileSync(join(dir, 'set', 'node_modules', 'x.yaml'), 'kind: Nope\n');
  writeFileSync(join(dir, 'empty', 'readme.md'), '# nothing');
  symlinkSync(join(dir, 'set'), join(dir, 'set', 'b-servers', 'loop'));

  it('reads directories recursively in name order, skipping hidden entries, node_modules and other files', async () => {
    const result = await loadManifestPaths([join(dir, 'set')]);
    expect(lines(result)).toEqual([]);
    expect(result.manifests.map((m) => m.file)).toEqual([join(dir, 'set', 'a-provider.yml'), join(dir, 'set', 'b-servers', 'web.yaml')]);
  });

  it('reads a file given twice (directly and through its directory) once', async () => {
    const result = await loadManifestPaths([join(dir, 'set', 'b-servers', 'web.yaml'), join(dir, 'set')]);
    expect(lines(result)).toEqual([]);
    expect(result.manifests).toHaveLength(2);
  });

  it('reports missing paths and directories without manifests', async () => {
    const result = await loadManifestPaths([join(dir, 'nope.yaml'), join(dir, 'empty')]);
    expect(lines(result)).toEqual([
      `${join(dir, 'nope.yaml')}: no such file or directory`,
      `${join(dir, 'empty')}: no manifests here: the directory holds no .yaml or .yml files`,
    ]);
  });

  it('reads - from stdin through the given reader, and names it <stdin>', async () => {
    const result = await loadManifestPaths(['-', join(dir, 'set', 'a-provider.yml')], { readStdin: () => Promise.resolve(SERVER.replace('eu-1', '[')) });
    expect(lines(result)).toEqual(['<stdin>:8:3 Server/web-1: invalid YAML: flow sequence in block collection must be sufficiently indented and end with a ]']);
    const valid = await loadManifestPaths(['-', join(dir, 'set', 'a-provider.yml')], { readStdin: () => Promise.resolve(SERVER) });
    expect(valid.manifests.map((m) => m.file)).toEqual(['-', join(dir, 'set', 'a-provider.yml')]);
  });
});

describe('formatManifestError', () => {
  it('leaves out what is unknown', () => {
    expect(formatManifestError(wholeFileError('x.yaml', 'no such file or directory'))).toBe('x.yaml: no such file or directory');
    expect(formatManifestError({ file: 'db.yaml', line: 14, column: 5, document: 0, pointer: '/spec/storageGb', kind: 'Database', name: 'shop', message: 'must be >= 1' })).toBe(
      'db.yaml:14:5 Database/shop spec.storageGb: must be >= 1',
    );
    expect(formatManifestError({ file: 'a.yaml', line: 2, column: 3, document: 1, pointer: '/metadata/labels/app.kubernetes.io~1name', message: 'm' })).toBe(
      'a.yaml:2:3 document 2 metadata.labels["app.kubernetes.io/name"]: m',
    );
  });
});
