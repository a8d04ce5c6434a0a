/**
 * @module The fast path of loading (js-yaml, no parse tree kept) against the exact path (`yaml`,
 * positions kept): for sets of manifests written in every YAML style, both give the same
 * manifests, documents, lines, columns and field positions, or the same errors in the same order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryManifestCache } from './manifest-cache.js';
import { formatManifestError } from './manifest-error.js';
import { readManifestsFast } from './manifest-fast-parser.js';
import { DEFAULT_MANIFEST_LIMITS } from './manifest-limits.js';
import { loadManifestSources, loadManifestSourcesExactly, type LoadResult, type ManifestSource } from './manifest-loader.js';
import { referencesOf } from './references.js';
import { findPackageRoot } from './schema-files.js';

/** What a user of a load result can see: errors as printed, and each manifest with where it and its fields are. */
function seen(result: LoadResult): unknown {
  return {
    errors: result.errors.map(formatManifestError),
    manifests: result.manifests.map((m) => {
      const pointers = ['', '/metadata', '/metadata/name', '/spec', '/spec/nope', ...referencesOf(m.manifest.kind, m.manifest.spec).map((r) => r.pointer)];
      return { manifest: m.manifest, file: m.file, line: m.line, column: m.column, document: m.document, at: pointers.map((p) => m.locate(p)) };
    }),
  };
}

function expectSameAsExact(sources: ManifestSource[]): LoadResult {
  const result = loadManifestSources(sources);
  expect(seen(result)).toStrictEqual(seen(loadManifestSourcesExactly(sources)));
  return result;
}

// ---- Manifests, written in every YAML style -----------------------------------------------

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

/** A value to write, with the anchor to put on it or the anchor it repeats. */
interface Anchored {
  anchor?: string;
  aliasOf?: string;
}

/** Strings yaml core reads as something else when plain. */
const NOT_A_STRING = /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)?$/;
const PLAIN_SAFE = /^[A-Za-z0-9][A-Za-z0-9 ._/:-]*$/;

/** Writes values in styles picked from `choices`, keeping what they mean (within `status`, anything goes). */
class ManifestWriter {
  private next = 0;
  constructor(private readonly choices: number[]) {}

  private pick(n: number): number {
    return (this.choices[this.next++ % this.choices.length] ?? 0) % n;
  }

  key(key: string): string {
    return PLAIN_SAFE.test(key) && !NOT_A_STRING.test(key) && !key.includes(': ') && !key.endsWith(' ') ? key : JSON.stringify(key);
  }

  scalar(value: Value, inFlow: boolean, indent: number): string {
    if (value === null) return ['~', 'null', 'Null', ''][this.pick(4)] ?? '~';
    if (typeof value === 'boolean') return [String(value), value ? 'True' : 'False', value ? 'TRUE' : 'FALSE'][this.pick(3)] ?? String(value);
    if (typeof value === 'number') return this.number(value);
    if (typeof value === 'string') return this.string(value, inFlow, indent);
    return JSON.stringify(value);
  }

  private number(value: number): string {
    const forms = [String(value)];
    if (Number.isInteger(value) && value >= 0) forms.push(`0o${value.toString(8)}`, `0x${value.toString(16)}`, `+${value}`, `${value}.0`);
    if (value > 0 && value % 1000 === 0) forms.push(`${value / 1000}e3`, `${value / 1000}.0E+3`);
    return forms[this.pick(forms.length)] ?? String(value);
  }

  private string(value: string, inFlow: boolean, indent: number): string {
    const pad = ' '.repeat(indent + 2);
    const oneLine = !value.includes('\n');
    const forms: string[] = [JSON.stringify(value), JSON.stringify(value).replace(/[a-z]/, (c) => `\\x${c.charCodeAt(0).toString(16)}`)];
    if (oneLine) forms.push(`'${value.replace(/'/g, "''")}'`);
    if (oneLine && PLAIN_SAFE.test(value) && !NOT_A_STRING.test(value) && !value.includes(': ') && !value.includes(' #') && !value.endsWith(' ') && !(inFlow && value.includes(':'))) {
      forms.push(value, value);
    }
    const blockSafe = !inFlow && value !== '' && !/^[ \n]/.test(value) && !/ \n|\n\n$| $/.test(value);
    if (blockSafe && !value.endsWith('\n')) forms.push(`|-\n${pad}${value.replace(/\n/g, `\n${pad}`).replace(new RegExp(`\\n${pad}(?=\\n)`, 'g'), '\n')}`);
    if (blockSafe && value.endsWith('\n') && !value.endsWith('\n\n')) {
      forms.push(`|\n${pad}${value.slice(0, -1).replace(/\n/g, `\n${pad}`).replace(new RegExp(`\\n${pad}(?=\\n)`, 'g'), '\n')}`);
    }
    if (blockSafe && oneLine) forms.push(`>-\n${pad}${value}`);
    return forms[this.pick(forms.length)] ?? JSON.stringify(value);
  }

  /** `value` as the value after `key:` (or `-`) at `indent`, starting with the space or newline that follows the indicator. */
  block(value: Value, indent: number, anchored: Anchored = {}): string {
    if (anchored.aliasOf !== undefined) return ` *${anchored.aliasOf}`;
    const anchor = anchored.anchor !== undefined ? ` &${anchored.anchor}` : '';
    const comment = this.pick(6) === 0 ? ' # note' : '';
    const pad = ' '.repeat(indent);
    if (Array.isArray(value) && value.length > 0 && this.pick(2) === 0) {
      const itemPad = this.pick(3) === 0 ? pad.slice(2) : pad;
      return `${anchor}${comment}\n${value.map((item) => `${itemPad}-${this.block(item, itemPad.length + 2)}`).join('\n')}`;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0 && this.pick(3) !== 0) {
      return `${anchor}${comment}\n${this.entries(value, indent)}`;
    }
    if (typeof value === 'object' && value !== null) return `${anchor} ${this.flow(value, indent)}${comment}`;
    const scalar = this.scalar(value, false, indent - 2);
    return scalar === '' && anchor === '' ? '' : `${anchor} ${scalar}${scalar.startsWith('|') || scalar.startsWith('>') ? '' : comment}`;
  }

  entries(value: { [key: string]: Value }, indent: number, anchors: Record<string, Anchored> = {}): string {
    const pad = ' '.repeat(indent);
    return Object.entries(value)
      .map(([key, child]) => `${this.pick(8) === 0 ? `${pad}# about ${key}\n` : ''}${pad}${this.key(key)}:${this.block(child, indent + 2, anchors[key])}`)
      .join('\n');
  }

  flow(value: Value, indent: number): string {
    const breakLines = this.pick(5) === 0;
    const separator = breakLines ? `,\n${' '.repeat(indent + 2)}` : ', ';
    if (Array.isArray(value)) return `[${value.map((item) => this.flow(item, indent + 2)).join(separator)}]`;
    if (typeof value === 'object' && value !== null) {
      return `{${Object.entries(value).map(([k, v]) => `${this.key(k)}: ${this.flow(v, indent + 2)}`).join(separator)}}`;
    }
    const scalar = this.scalar(value, true, indent);
    return scalar === '' ? '~' : scalar;
  }
}

interface Spec {
  kind: 'Provider' | 'Server' | 'Database' | 'App';
  name: string;
  metadata: { [key: string]: Value };
  spec: { [key: string]: Value };
  status?: Value;
  /** Repeat the labels as annotations through an alias. */
  annotationsAliasLabels: boolean;
}

const labelsArbitrary = fc.option(fc.dictionary(fc.constantFrom('team', 'tier', 'app.kubernetes.io/name', 'x'), fc.constantFrom('shop', 'web', 'yes', 'no', 'on', 'v1.2', '', 'a_b')), { nil: undefined });
const statusArbitrary: fc.Arbitrary<Value> = fc.jsonValue({ maxDepth: 2 }).map((v) => ({ phase: 'running', extra: v as Value, flags: ['yes', 'no', 0o14, 1e3, Infinity === 1 ? 0 : 7] }));

/** A world of manifests that refer to each other, mostly valid. */
const setArbitrary = fc
  .record({
    providers: fc.uniqueArray(fc.constantFrom('sandbox', 'cloud-1'), { minLength: 1, maxLength: 2 }),
    servers: fc.uniqueArray(fc.constantFrom('web-1', 'web-2', 'web-3'), { minLength: 1, maxLength: 3 }),
    databases: fc.uniqueArray(fc.constantFrom('shop-db', 'cache-db'), { maxLength: 2 }),
    apps: fc.uniqueArray(fc.constantFrom('shop', 'api'), { maxLength: 2 }),
    picks: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    labels: labelsArbitrary,
    status: fc.option(statusArbitrary, { nil: undefined }),
    port: fc.integer({ min: 1, max: 65535 }),
    storageGb: fc.constantFrom(1, 20, 1000, 16384),
    multiLine: fc.constantFrom('npm ci\nnpm run build\n', 'node server.js', 'line one\n\nline three', "it's \"quoted\"", 'x: y # not a comment'),
    mistake: fc.option(fc.constantFrom('duplicate', 'missing reference', 'wrong type', 'unknown field', 'unquoted version'), { freq: 6, nil: undefined }),
  })
  .map((w): Spec[] => {
    const pick = <T,>(list: readonly T[], i: number): T => list[(w.picks[i] ?? 0) % list.length] as T;
    const metadata = (name: string, i: number): { [key: string]: Value } => ({
      name,
      ...((w.picks[i] ?? 0) % 3 === 0 ? { namespace: 'default' } : {}),
      ...(w.labels !== undefined && (w.picks[i] ?? 0) % 2 === 0 ? { labels: w.labels } : {}),
    });
    const specs: Spec[] = [
      ...w.providers.map((name, i): Spec => ({ kind: 'Provider', name, metadata: metadata(name, i), spec: { vendor: name === 'sandbox' ? 'sandbox' : 'local', ...(i === 1 ? { credentialsRef: { env: 'CLOUD_TOKEN' } } : {}) }, annotationsAliasLabels: false })),
      ...w.servers.map((name, i): Spec => ({
        kind: 'Server',
        name,
        metadata: metadata(name, i + 1),
        spec: { provider: pick(w.providers, i), region: pick(['eu-1', 'us-1', 'yes', 'null-island'], i + 1), size: 'small', ...(i === 0 ? { image: 'debian-12', state: 'running' } : {}) },
        annotationsAliasLabels: i === 0,
      })),
      ...w.databases.map((name, i): Spec => ({
        kind: 'Database',
        name,
        metadata: metadata(name, i + 2),
        spec: { type: 'postgresql', server: pick(w.servers, i + 2), version: pick(['16', '15.2', '7'], i), storageGb: w.storageGb, ...(i === 0 ? { backup: { schedule: '0 3 * * *', retention: 7 } } : {}) },
        annotationsAliasLabels: false,
      })),
      ...w.apps.map((name, i): Spec => ({
        kind: 'App',
        name,
        metadata: { ...metadata(name, i + 3), annotations: { note: w.multiLine, 'cairn.dev/self-heal': 'false' } },
        spec: {
          server: pick(w.servers, i + 3),
          source: i === 0 ? { git: { url: 'https://git.example.com/acme/shop.git', ref: 'main' } } : { image: 'registry.example.com/api:1.2' },
          port: w.port,
          command: w.multiLine,
          env: { NODE_ENV: 'production', EMPTY: '', NOTE: w.multiLine },
          ...(w.databases.length > 0 ? { databases: w.databases } : {}),
          healthCheck: { path: '/healthz', timeoutSeconds: 30 },
        },
        annotationsAliasLabels: false,
      })),
    ];
    if (w.status !== undefined && specs[0] !== undefined) specs[0].status = w.status;
    const victim = specs[(w.picks[7] ?? 0) % specs.length];
    if (victim !== undefined) {
      if (w.mistake === 'duplicate') specs.push({ ...victim });
      if (w.mistake === 'missing reference' && victim.kind !== 'Provider') victim.spec = { ...victim.spec, [victim.kind === 'App' || victim.kind === 'Database' ? 'server' : 'provider']: 'nope' };
      if (w.mistake === 'wrong type') victim.spec = { ...victim.spec, ...(victim.kind === 'App' ? { port: String(w.port) } : { extra: 1 }) };
      if (w.mistake === 'unknown field') victim.metadata = { ...victim.metadata, colour: 'red' };
      if (w.mistake === 'unquoted version' && victim.kind === 'Database') victim.spec = { ...victim.spec, version: 16 };
    }
    return specs;
  });

/** The YAML of one manifest. */
function writeManifest(spec: Spec, writer: ManifestWriter): string {
  const metadataAnchors: Record<string, Anchored> = {};
  const metadata = { ...spec.metadata };
  if (spec.annotationsAliasLabels && metadata.labels !== undefined) {
    metadata.annotations = metadata.labels;
    metadataAnchors.labels = { anchor: 'labels' };
    metadataAnchors.annotations = { aliasOf: 'labels' };
  }
  const specAnchors: Record<string, Anchored> = {};
  const body = [
    `apiVersion: ${writer.scalar('cairn.dev/v1', false, 0)}`,
    `kind: ${spec.kind}`,
    `metadata:\n${writer.entries(metadata, 2, metadataAnchors)}`,
    `spec:\n${writer.entries(spec.spec, 2, specAnchors)}`,
    ...(spec.status !== undefined ? [`status:${writer.block(spec.status, 2, { anchor: 'status' })}`, `statusAgain: *status`] : []),
  ];
  // `statusAgain` would be an unknown field: keep the alias inside status instead.
  return body.filter((line) => !line.startsWith('statusAgain')).join('\n');
}

/** Files of the set: manifests shared out over one to three files, with document markers of every kind. */
const sourcesArbitrary: fc.Arbitrary<ManifestSource[]> = fc
  .record({ specs: setArbitrary, choices: fc.array(fc.nat(), { minLength: 1, maxLength: 20 }), files: fc.integer({ min: 1, max: 3 }), shuffle: fc.nat() })
  .map(({ specs, choices, files, shuffle }) => {
    const writer = new ManifestWriter(choices);
    const texts: string[][] = Array.from({ length: files }, () => []);
    specs.forEach((spec, i) => texts[(i + shuffle) % files]?.push(writeManifest(spec, writer)));
    return texts.map((docs, i) => {
      const markers = ['---\n', '...\n---\n', '--- # next\n', '\n---\n\n# comment\n'];
      const start = ['', '---\n', '# a file of manifests\n---\n', '\n'][(choices[0] ?? 0) % 4] ?? '';
      const text = start + docs.map((doc, j) => (j === 0 ? '' : (markers[(j + (choices[1] ?? 0)) % markers.length] ?? '---\n')) + `${doc}\n`).join('');
      return { file: `f${i}.yaml`, text: (choices[2] ?? 0) % 5 === 0 ? text.replace(/\n/g, '\r\n') : text };
    });
  });

const RUNS = Number(process.env.CAIRN_FUZZ_RUNS ?? 150);

describe('the fast path of loading', () => {
  it('gives what the exact path gives, for sets written in every YAML style', () => {
    let readFast = 0;
    let files = 0;
    fc.assert(
      fc.property(sourcesArbitrary, (sources) => {
        expectSameAsExact(sources);
        for (const { text, file } of sources) {
          files++;
          if ('manifests' in readManifestsFast(text, file, DEFAULT_MANIFEST_LIMITS)) readFast++;
        }
      }),
      { numRuns: RUNS },
    );
    // Most files must really take the fast path, or the comparison would prove nothing.
    expect(readFast).toBeGreaterThan(files / 2);
  });

  it('gives the same from a manifest cache, cold and warm, as the exact path', () => {
    const cache = new MemoryManifestCache();
    let hits = 0;
    const counting = {
      getMany: (keys: readonly string[]) => {
        const found = cache.getMany(keys);
        hits += found.size;
        return found;
      },
      putMany: (entries: ReadonlyMap<string, string>) => cache.putMany(entries),
    };
    fc.assert(
      fc.property(sourcesArbitrary, (sources) => {
        const exact = seen(loadManifestSourcesExactly(sources));
        expect(seen(loadManifestSources(sources, { cache: counting }))).toStrictEqual(exact);
        expect(seen(loadManifestSources(sources, { cache: counting }))).toStrictEqual(exact);
      }),
      { numRuns: RUNS },
    );
    // The warm loads must really come from the cache, or the comparison would prove nothing.
    expect(hits).toBeGreaterThan(RUNS / 2);
  });

  it('reads the quickstart example on the fast path, positions included', () => {
    const dir = join(findPackageRoot(import.meta.dirname), 'examples', 'quickstart');
    const sources = ['provider.yaml', 'servers.yaml', 'database.yaml', 'app.yaml'].map((name) => ({ file: name, text: readFileSync(join(dir, name), 'utf8') }));
    for (const { text, file } of sources) expect(readManifestsFast(text, file, DEFAULT_MANIFEST_LIMITS)).toHaveProperty('manifests');
    const result = expectSameAsExact(sources);
    expect(result.manifests.map((m) => `${m.file}:${m.line}:${m.column} ${m.manifest.kind}/${m.manifest.metadata.name}`)).toEqual([
      'provider.yaml:2:1 Provider/local',
      'servers.yaml:2:1 Server/web-1',
      'database.yaml:3:1 Database/shop-db',
      'app.yaml:2:1 App/shop',
    ]);
    expect(result.manifests[3]?.locate('/spec/databases/0')).toEqual({ line: 13, column: 15 });
  });
});

describe('falling back to the exact path', () => {
  const PROVIDER = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n';
  const SERVER = 'apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: web-1\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n';

  it('reports a document js-yaml reads but cairn refuses exactly as before', () => {
    const text = `${PROVIDER}---\n${SERVER.replace('size: small', 'size: small\n  cpus: 2').replace('region: eu-1', 'region: 7')}`;
    expect(readManifestsFast(text, 'a.yaml', DEFAULT_MANIFEST_LIMITS)).toEqual({ invalid: 'document 2 is not a valid manifest' });
    const result = expectSameAsExact([{ file: 'a.yaml', text }]);
    expect(result.errors.map(formatManifestError)).toEqual([
      'a.yaml:14:11 Server/web-1 spec.region: must be a string, not a number (put it in quotes: "7")',
      'a.yaml:16:3 Server/web-1 spec.cpus: unknown field "cpus"',
    ]);
  });

  it('reports duplicate names and missing references across files exactly as before', () => {
    const database = 'apiVersion: cairn.dev/v1\nkind: Database\nmetadata:\n  name: db\nspec:\n  type: postgresql\n  server: web-2\n  version: "16"\n';
    const sources = [
      { file: 'a.yaml', text: `${PROVIDER}---\n${SERVER}` },
      { file: 'b.yaml', text: `${SERVER}---\n${database}` },
    ];
    for (const { text, file } of sources) expect(readManifestsFast(text, file, DEFAULT_MANIFEST_LIMITS)).toHaveProperty('manifests');
    const result = expectSameAsExact(sources);
    expect(result.errors.map(formatManifestError)).toEqual([
      'b.yaml:1:1 Server/web-1: duplicate Server "web-1" in namespace default (first defined at a.yaml:8:1)',
      'b.yaml:16:11 Database/db spec.server: Server "web-2" does not exist in namespace default',
    ]);
  });

  it('reads a valid file the fast path declines with yaml, alongside files it reads itself', () => {
    const tagged = SERVER.replace('size: small', 'size: !!str small');
    expect(readManifestsFast(tagged, 'tagged.yaml', DEFAULT_MANIFEST_LIMITS)).toEqual({ declined: 'a tag' });
    const result = expectSameAsExact([
      { file: 'p.yaml', text: PROVIDER },
      { file: 'tagged.yaml', text: tagged },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.manifests.map((m) => m.manifest.metadata.name)).toEqual(['sandbox', 'web-1']);
  });

  it('refuses an alias bomb before js-yaml reads it, with the same error as before', () => {
    const text = readFileSync(join(findPackageRoot(import.meta.dirname), 'test', 'fixtures', 'broken', 'alias-bomb.yaml'), 'utf8');
    expect(readManifestsFast(text, 'alias-bomb.yaml', DEFAULT_MANIFEST_LIMITS)).toEqual({ declined: 'too many aliases, counted before parsing' });
    expect(expectSameAsExact([{ file: 'alias-bomb.yaml', text }]).errors.map((e) => e.message)).toEqual([
      'too many YAML aliases (possible alias bomb); at most 100 expansions are allowed per document',
    ]);
  });
});
