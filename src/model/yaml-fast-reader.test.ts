/**
 * @module The fast YAML reader against `yaml` itself: whatever text the fast reader accepts, `yaml`
 * (set up as the manifest parser sets it up) reads without a complaint, into the same documents,
 * values and start offsets. Random YAML of every style, valid and mangled, and the cases where
 * the two parsers are known to part ways, each declined.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { LineCounter } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MANIFEST_LIMITS } from './manifest-limits.js';
import { parseYamlDocuments } from './manifest-parser.js';
import { readYamlFast } from './yaml-fast-reader.js';
import { findKeyProblems } from './yaml-guards.js';
import { locateOffset } from './yaml-positions.js';

/** How `yaml` reads a text as the manifest parser does: every document's value and start, or a complaint. */
function readExactly(text: string): { values: unknown[]; offsets: number[] } | { complaint: string } {
  try {
    const documents = parseYamlDocuments(text, new LineCounter());
    for (const doc of documents) {
      const problem = [...doc.errors, ...doc.warnings][0] ?? findKeyProblems(doc)[0];
      if (problem !== undefined) return { complaint: problem.message };
    }
    const values = documents.map((doc) => doc.toJS({ maxAliasCount: DEFAULT_MANIFEST_LIMITS.maxAliasCount }) as unknown);
    return { values, offsets: documents.map((doc) => locateOffset(doc, '')) };
  } catch (cause) {
    return { complaint: String(cause) };
  }
}

/** Whether the fast reader either declines `text` or reads exactly what `yaml` reads. */
function agreesWithYaml(text: string): { agrees: boolean; read: boolean; detail: string } {
  const fast = readYamlFast(text, DEFAULT_MANIFEST_LIMITS);
  if (!('documents' in fast)) return { agrees: true, read: false, detail: JSON.stringify(fast) };
  const exact = readExactly(text);
  if ('complaint' in exact) return { agrees: false, read: true, detail: `yaml complains: ${exact.complaint}` };
  // Empty documents are skipped (so js-yaml's one empty document for a text of comments does not
  // matter), but every other one must have the same index, value and start.
  const fastDocuments = fast.documents.flatMap((d, i) => (d.value === null ? [] : [[i, d.value, d.offset]]));
  const exactDocuments = exact.values.flatMap((value, i) => (value === null ? [] : [[i, value, exact.offsets[i]]]));
  if (!isDeepStrictEqual(fastDocuments, exactDocuments)) {
    return { agrees: false, read: true, detail: `documents ${JSON.stringify(fastDocuments)} vs ${JSON.stringify(exactDocuments)}` };
  }
  return { agrees: true, read: true, detail: '' };
}

// ---- Random YAML --------------------------------------------------------------------------

const words = ['a', 'b', 'name', 'x-y', 'snake_case', 'CamelCase', 'a.b', 'a/b', 'http://h.example/p?q=1', 'a:b', "it's", 'two words', 'é', '日本', '-x', 'a#b', '@x', '%x', '`x'];
const oddPlain = ['b:c', '-b', '?b', ':b', "'b'c", '"b"c', 'b]', 'b}', 'b,c', 'b ', '%b', 'a  b', '-', '--', '---', '...', '.', 'a\\b', '0 3 * * *', 'a *b', 'a &b', 'a !b', 'a | b', 'a > b'];
const numbersAndWords = [
  '12', '-3', '+4', '0', '-0', '012', '0o14', '0o8', '0x1F', '0xg', '1e3', '1E-2', '-.5', '.5', '+.5', '1.', '1.0', '3.140', '1_000', '0b101', '-0x1',
  '.inf', '-.Inf', '+.INF', '.NaN', '-.nan', 'null', 'Null', 'NULL', '~', 'true', 'True', 'TRUE', 'false', 'yes', 'no', 'on', 'off', 'y', 'n',
  '1e400', '123456789012345678901234567890', '0x123456789abcdef0123', '2001-12-14', '12:30', '<<', '=', '- x', '? x', '*x', '&x', '!x',
];
const escapes = ['\\n', '\\t', '\\x41', '\\u263A', '\\U0001F600', '\\\\', '\\"', '\\/', '\\0', '\\e', '\\N', '\\_', '\\L', '\\P', '\\a', '\\ ', '\\q', '\\x4'];

/** A YAML node, rendered later with the indentation of where it lands. */
type YNode =
  | { t: 'plain'; text: string; more: string[] }
  | { t: 'single'; text: string; broken: boolean }
  | { t: 'double'; parts: string[]; broken: boolean }
  | { t: 'block'; header: string; lines: string[] }
  | { t: 'alias' }
  | { t: 'seq'; flow: boolean; items: YNode[] }
  | { t: 'map'; flow: boolean; pairs: Array<[string, YNode]> };

interface Decoration {
  anchor: boolean;
  comment: boolean;
}

/** How a document is laid out: the indentation step, and whether lists under a key are indented. */
interface Layout {
  step: number;
  indentLists: boolean;
}

const keyArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...words.slice(0, 8), 'kind', 'spec', 'metadata', '__proto__', 'constructor', 'toString') },
  { weight: 1, arbitrary: fc.constantFrom('1', '0x1', '1.0', 'true', '"quoted key"', "'single'", '"1"', '"a: b"', '~', 'null', '""', '[a]', '{a: 1}', '*k', '? k') },
  { weight: 1, arbitrary: fc.constantFrom('a b', '"a\\tb"', "'a#b'", 'a#b', '-a', '?a', 'a?', '<<', '"<<"', '1e3', '.inf', '0o14', '-0', 'a:b', '"\\u00e9"', "'it''s'", 'NULL ', '@a') },
);

const scalarArbitrary: fc.Arbitrary<YNode> = fc.oneof(
  fc.record({ t: fc.constant('plain' as const), text: fc.oneof(fc.constantFrom(...words, ...numbersAndWords), fc.constantFrom(...oddPlain)), more: fc.array(fc.constantFrom(...words.slice(0, 6), '12', '#c', '', '- x', 'k: v'), { maxLength: 2 }) }),
  fc.record({ t: fc.constant('single' as const), text: fc.constantFrom("x", "it''s", ' lead', 'trail ', '', 'a\n  b', 'a\n\n  b', '# not a comment', '\\n'), broken: fc.boolean() }),
  fc.record({ t: fc.constant('double' as const), parts: fc.array(fc.constantFrom(...escapes, 'x', ' ', 'é', '\n  ', '\\\n  '), { maxLength: 5 }), broken: fc.boolean() }),
  fc.record({
    t: fc.constant('block' as const),
    header: fc.constantFrom('|', '|-', '|+', '>', '>-', '>+', '|2', '>1', '|-2', '| # c', '|x'),
    lines: fc.array(fc.constantFrom('line', '  indented', '', 'more words', '# hash', 'key: value', '- item', '  '), { minLength: 1, maxLength: 4 }),
  }),
  fc.constant<YNode>({ t: 'alias' }),
);

const nodeArbitrary: fc.Arbitrary<YNode> = fc.letrec<{ node: YNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArbitrary,
    fc.record({ t: fc.constant('seq' as const), flow: fc.boolean(), items: fc.array(tie('node'), { maxLength: 3 }) }),
    fc.record({ t: fc.constant('map' as const), flow: fc.boolean(), pairs: fc.array(fc.tuple(keyArbitrary, tie('node')), { maxLength: 3 }) }),
  ),
})).node;

/** Renders nodes, choosing anchors, aliases and comments from a stream of random decisions. */
class Renderer {
  private anchors: string[] = [];
  private next = 0;
  private layout: Layout = { step: 2, indentLists: true };
  constructor(private readonly decisions: Decoration[]) {}

  private decide(): Decoration {
    return this.decisions[this.next++ % Math.max(1, this.decisions.length)] ?? { anchor: false, comment: false };
  }

  private anchorOf(decoration: Decoration): string {
    if (!decoration.anchor) return '';
    const name = `a${this.anchors.length % 3}`;
    this.anchors.push(name);
    return `&${name} `;
  }

  startDocument(layout: Layout): void {
    this.anchors = [];
    this.layout = layout;
  }

  /** A scalar or flow node on one line (or a few, for multi-line scalars), indented `indent` where it continues. */
  inline(node: YNode, indent: number, inFlow: boolean): string {
    const pad = ' '.repeat(indent);
    const decoration = this.decide();
    switch (node.t) {
      case 'plain':
        return this.anchorOf(decoration) + [node.text, ...node.more].join(`\n${pad}  `);
      case 'single':
        return `${this.anchorOf(decoration)}'${node.text.replace(/\n/g, `\n${pad}`)}${node.broken ? '' : "'"}`;
      case 'double':
        return `${this.anchorOf(decoration)}"${node.parts.join('').replace(/\n/g, `\n${pad}`)}${node.broken ? '' : '"'}`;
      case 'alias': {
        const name = this.anchors[this.next % Math.max(1, this.anchors.length)];
        return name === undefined ? 'plain' : `*${name}`;
      }
      case 'block':
        if (inFlow) return '"block in flow"';
        return `${this.anchorOf(decoration)}${node.header}\n${node.lines.map((line) => (line === '' ? '' : `${pad}  ${line}`)).join('\n')}`;
      case 'seq': {
        const anchor = this.anchorOf(decoration);
        return `${anchor}[${node.items.map((item) => this.inline(item, indent + 2, true)).join(decoration.comment ? `,\n${pad}  ` : ', ')}]`;
      }
      case 'map': {
        const anchor = this.anchorOf(decoration);
        return `${anchor}{${node.pairs.map(([k, v]) => `${k}: ${this.inline(v, indent + 2, true)}`).join(decoration.comment ? `,\n${pad}  ` : ', ')}}`;
      }
    }
  }

  /** A node in block context, as the value after `key:` or `-` at `indent`. */
  block(node: YNode, indent: number): string {
    const pad = ' '.repeat(indent);
    const comment = this.decide().comment ? ' # note' : '';
    if (node.t === 'seq' && !node.flow && node.items.length > 0) {
      return `${comment}\n${node.items.map((item) => `${pad}- ${this.block(item, indent + 2).replace(/^\n +/, '')}`).join('\n')}`;
    }
    if (node.t === 'map' && !node.flow && node.pairs.length > 0) {
      return `${comment}\n${node.pairs.map(([k, v]) => `${pad}${k}:${this.blockValue(v, indent)}`).join('\n')}`;
    }
    return ` ${this.inline(node, indent, false)}${node.t === 'block' ? '' : comment}`;
  }

  /** The value of a key at `indent`: nested one step deeper, lists maybe not. */
  private blockValue(node: YNode, indent: number): string {
    const listAtKey = node.t === 'seq' && !node.flow && !this.layout.indentLists;
    return this.block(node, listAtKey ? indent : indent + this.layout.step);
  }
}

/** A whole text: documents separated by markers, then a few random edits. */
const textArbitrary: fc.Arbitrary<string> = fc
  .record({
    documents: fc.array(
      fc.tuple(nodeArbitrary, fc.constantFrom('---\n', '--- # c\n', '', '...\n---\n', '---\n\n', '# c\n---\n'), fc.record({ step: fc.integer({ min: 1, max: 4 }), indentLists: fc.boolean() })),
      { minLength: 1, maxLength: 3 },
    ),
    // Half the texts are left as rendered, so that most of them are valid YAML.
    lineEdits: fc.oneof(fc.constant([]), fc.array(fc.record({ line: fc.nat(), edit: fc.constantFrom('indent', 'dedent', 'duplicate', 'drop', 'comment') }), { maxLength: 2 })),
    crlf: fc.boolean(),
    decorations: fc.array(fc.record({ anchor: fc.boolean(), comment: fc.boolean() }), { minLength: 1, maxLength: 8 }),
    edits: fc.oneof(fc.constant([]), fc.array(
      fc.record({
        at: fc.nat(),
        remove: fc.nat(3),
        insert: fc.constantFrom('', ' ', '  ', '\n', ':', ': ', '- ', '#', ' #', '&a0 ', '*a0', '!', '? ', '[', ']', '{', '}', ',', '"', "'", '|', '---\n', '...\n', '\r\n', '\r', '\t', '~', 'null', '\\', '%', '\ufeff'),
      }),
      { maxLength: 2 },
    )),
  })
  .map(({ documents, decorations, lineEdits, edits, crlf }) => {
    const renderer = new Renderer(decorations);
    let text = documents
      .map(([node, marker, layout], index) => {
        renderer.startDocument(layout);
        const body = node.t === 'map' || node.t === 'seq' ? renderer.block(node, 0).replace(/^ ?(# note)?\n/, '') : renderer.inline(node, 0, false);
        return `${index === 0 ? marker.replace(/^\.\.\.\n/, '') : marker || '---\n'}${body}\n`;
      })
      .join('');
    const lines = text.split('\n');
    for (const { line, edit } of lineEdits) {
      const at = line % lines.length;
      const content = lines[at] ?? '';
      if (edit === 'indent') lines[at] = ` ${content}`;
      else if (edit === 'dedent') lines[at] = content.replace(/^ /, '');
      else if (edit === 'duplicate') lines.splice(at, 0, content);
      else if (edit === 'drop') lines.splice(at, 1);
      else lines.splice(at, 0, `${' '.repeat(at % 5)}# comment line`);
    }
    text = lines.join('\n');
    if (crlf) text = text.replace(/\n/g, '\r\n');
    for (const { at, remove, insert } of edits) {
      const position = at % (text.length + 1);
      text = text.slice(0, position) + insert + text.slice(position + remove);
    }
    return text;
  });

const RUNS = Number(process.env.CAIRN_FUZZ_RUNS ?? 3000);

describe('readYamlFast', () => {
  it('reads only what yaml reads the same way, without a complaint', () => {
    let read = 0;
    fc.assert(
      fc.property(textArbitrary, (text) => {
        const { agrees, read: wasRead, detail } = agreesWithYaml(text);
        if (wasRead) read++;
        if (!agrees) throw new Error(`${detail}\n--- text:\n${JSON.stringify(text)}`);
      }),
      { numRuns: RUNS },
    );
    // The property would hold trivially if nothing were read; most generated texts are plain enough.
    expect(read).toBeGreaterThan(RUNS / 20);
  });

  it('reads only aliases yaml does not count as too many, however they are chained', () => {
    // Anchors a0, a1, … each holding scalars and aliases to earlier anchors, in block or flow style.
    // Each uses the one before it a few times (chains are what multiply), and maybe others.
    const anchorsArbitrary = fc.array(fc.tuple(fc.nat(3), fc.array(fc.nat(12), { maxLength: 2 }), fc.boolean()), { minLength: 1, maxLength: 9 });
    fc.assert(
      fc.property(anchorsArbitrary, (anchors) => {
        const text = anchors
          .map(([usesOfPrevious, others, flow], i) => {
            const targets = [...Array.from({ length: i > 0 ? usesOfPrevious : 0 }, () => i - 1), ...others.filter((other) => other < i)];
            const values = ['x', ...targets.map((target) => `*a${target}`)];
            return flow ? `a${i}: &a${i} [${values.join(', ')}]` : `a${i}: &a${i}\n${values.map((v) => `  - ${v}`).join('\n')}`;
          })
          .join('\n');
        const { agrees, detail } = agreesWithYaml(`${text}\n`);
        expect(agrees, `${detail}\n--- text:\n${text}`).toBe(true);
      }),
      { numRuns: Math.max(300, RUNS / 10) },
    );
  });

  it('resolves plain scalars as yaml core does, where js-yaml core would not', () => {
    const scalars = ['0o14', '0x1F', '1e3', '.inf', '-.Inf', '.NaN', '~', 'null', 'yes', 'no', 'True', '012', '+12', '-0', '1.50', '1_000', '0b101', '-0x1F', '+0o7', '-.5', '1e400', '9'.repeat(400)];
    const text = scalars.map((s, i) => `k${i}: ${s}`).join('\n');
    const fast = readYamlFast(text, DEFAULT_MANIFEST_LIMITS);
    expect(fast).toHaveProperty('documents');
    const exact = readExactly(text);
    expect('documents' in fast && fast.documents.map((d) => d.value)).toStrictEqual('values' in exact && exact.values);
    expect('documents' in fast && fast.documents[0]?.value).toMatchObject({ k0: 12, k2: 1000, k8: 'yes', k10: true, k15: '1_000', k16: '0b101', k17: '-0x1F', k18: '+0o7', k19: -0.5, k20: Infinity, k21: Infinity });
  });

  it.each([
    ['a tab', 'a:\tb\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a null key', 'a:\n  ~: 1\n'],
    ['an empty key', 'a:\n  : 1\n'],
    ['a list key', '[a, b]: c\n'],
    ['an explicit key', '? a\n: b\n'],
    ['an alias key', 'a: &x k\n*x : v\n'],
    ['an anchor glued to a flow collection', 'a: &x[1]\n'],
    ['an anchor on a document', '&r a: 1\n'],
    ['an anchor defined twice', 'a: &x 1\nb: &x 2\nc: *x\n'],
    ['an alias inside its own anchor', 'a: &x [*x]\n'],
    ['a lone CR', 'a: 1\rb: 2\n'],
    ['a byte-order mark inside', 'a: 1\n\ufeff---\nb: 2\n'],
    ['a long key', `${'k'.repeat(1100)}: v\n`],
    ['a document marker glued to text', '---x: 1\n'],
    ['a comment line inside a flow mapping', '{a: b\n# c\n }\n'],
    ['a flow mapping entry without a value', 'a: {[b]}\n'],
    ['an empty list item', '- - \n\n- x\n'],
    ['a block scalar document', '   |\n # x\n'],
    ['an indentation indicator', 'a: |2\n   x\n'],
    ['keep chomping', 'a: |+\n  x\n'],
    ['an escaped line break before an empty line', 'a: "x\\\n\n  y"\n'],
  ])('declines %s', (_what, text) => {
    expect(readYamlFast(text, DEFAULT_MANIFEST_LIMITS)).toHaveProperty('declined');
  });

  it('declines a document with more aliases than can stay within the alias limit, before expanding any', () => {
    const text = `a: &a [x]\nb: [${Array.from({ length: 13 }, () => '*a').join(', ')}]\n`;
    expect(readYamlFast(text, DEFAULT_MANIFEST_LIMITS)).toEqual({ declined: 'too many aliases' });
    expect(readYamlFast(`a: &a [x]\nb: [*a, *a, *a]\n`, DEFAULT_MANIFEST_LIMITS)).toHaveProperty('documents');
  });
});
