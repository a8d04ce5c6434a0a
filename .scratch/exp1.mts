import { parseEvents, constructFromEvents, CORE_SCHEMA, EVENT_ID } from 'js-yaml';
import { parseAllDocuments, LineCounter } from 'yaml';
const cases: string[] = [
  'a: 1\n', '&r\na: 1\n', '&r a: 1\n', '--- &r\na: 1\n', '--- a: 1\n', '---\n# c\n\n  a: 1\n', '# only\n', 'a: 1\n---\n', 'a: 1\n---\n---\nb: 2\n',
  'a: 1\n...\nb: 2\n', 'a: 1\n...\n---\nb: 2\n', '...\n', '---\n...\n---\na: 1\n', 'a: [\n  b\n]\n', 'a: [\n  b\n  ]\n', 'a: {\n  b: 1\n}\n',
  'a: "x\n---\n*b"\n', '"a"#c\n', 'a: "b"#c\n', 'a: [b]#c\n', 'a: @x\n', 'a: `x\n', '&a[1]\n', 'a: &x[1]\n', 'a: *x\n', 'a: &x 1\nb: *x\n',
  '&a [*a]\n', 'a: &a\n  b: *a\n', 'a: !!str 1\n', 'a\t: 1\n', 'a:\t1\n', 'a: 1 # x\n', '- a\n -b\n', 'a: |\n  x\n\n', 'a: >-\n  x\n  y\n\n  z\n',
  'a: "\\x41\\u263A\\N\\_\\L\\P\\e"\n', "a: 'it''s'\n", 'a: b\n  c\n', 'a: b: c\n', '? a\n: b\n', 'a:\n- 1\n- 2\n', '{a: 1, b: [2, 3]}\n', '[a, b]: c\n',
  'a: {b:1}\n', 'a: {"b":1}\n', '- [a: 1]\n', 'a: 1\r\nb: 2\r\n', 'a: 1\rb: 2\n', '%YAML 1.2\n---\na: 1\n', 'a:   \n  b\n', 'key:\n  - a\n  -\n  - c\n',
  'x: 12345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890\n',
  'x: 1e400\n', 'x: -.5\n', 'x: 1_000\n', 'x: 0b1\n', 'x: +0x1\n', 'x: 0o14\n', 'x: .inf\n', 'x: -.Inf\n', 'x: .NaN\n', 'x: yes\n', 'x: ~\n', 'x: True\n', 'x: 012\n',
  'a:\n  b: 1\n c: 2\n', 'a: 1\n  b: 2\n', '- a\n- b: 1\n  c: 2\n', 'a: "multi\n  line"\n', 'a: plain\n\n  multi\n', 'a: >\n  folded\n   more\n  back\n',
  'a: |2\n   x\n', 'a: |+\n  x\n\n', 'a: |-\n  x\n', '- - a\n  - b\n', 'a: [a, b, ]\n', 'a: [a,, b]\n', 'a: {a, b}\n', 'a: [? a : b]\n', 'a: *\n', 'a: &\n',
  'a: b #c\n#d\n', '"a\n b": 1\n', 'a: -\n', 'a: - b\n', '-\n', 'a: !\n', 'a: ! b\n', ': a\n', 'a: { : b }\n', '[a]\n', 'null: 1\n', '~: 1\n', '1: a\n"1": b\n',
  '\uFEFFa: 1\n', 'a: 1\n\uFEFF---\nb: 2\n', 'a: "\\/"\n', "a: ''\n", 'a: " \\\n  x"\n', 'a: |\n\tx\n', 'a: "\tx"\n', 'a:\n  - b\n  -c\n',
];
for (const text of cases) {
  let fast: string;
  try {
    const events = parseEvents(text, {});
    const roots: number[] = [];
    for (let i = 0; i < events.length; i++) if (events[i]!.type === EVENT_ID.DOCUMENT) { const e = events[i + 1] as { start?: number; valueStart?: number; anchorStart?: number; type: number }; roots.push(e.type === EVENT_ID.SCALAR ? e.valueStart! : (e.start ?? -9)); }
    const docs = constructFromEvents(events, { source: text, schema: CORE_SCHEMA });
    fast = JSON.stringify(docs) + ' @' + roots.join(',');
  } catch (e) { fast = 'ERR ' + (e as Error).message.split('\n')[0]; }
  let slow: string;
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false, logLevel: 'error', uniqueKeys: false, schema: 'core', resolveKnownTags: false, merge: false } as const);
  const arr = Array.isArray(docs) ? docs : [];
  const probs = arr.flatMap((d) => [...d.errors, ...d.warnings].map((e) => e.code + ':' + e.message.split('\n')[0]));
  try {
    slow = (probs.length ? 'ERR ' + probs.join(' | ') + ' ~ ' : '') + JSON.stringify(arr.map((d) => d.toJS({ maxAliasCount: 100 }))) + ' @' + arr.map((d) => (d.contents as { range?: number[] } | null)?.range?.[0]).join(',');
  } catch (e) { slow = 'THROW ' + (e as Error).message; }
  const same = fast === slow;
  console.log(`${same ? 'SAME' : 'DIFF'} ${JSON.stringify(text)}\n   fast: ${fast}\n   slow: ${slow}`);
}
