/**
 * @module Summarises V8 CPU profiles (`node --cpu-prof`, see BENCH_CPU_PROF in bench/run.ts):
 * the functions with the most self time and the most total time, with compiled positions mapped
 * back to src/*.ts lines through the source maps `npm run build` writes.
 * Usage: npx tsx bench/support/cpu-profile-summary.ts FILE.cpuprofile... [--top N]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './repo-paths.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface FunctionCost {
  /** `name (src/model/x.ts:12)`. */
  where: string;
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  durationMs: number;
  bySelf: FunctionCost[];
  byTotal: FunctionCost[];
}

const COMPILED_DIR = join(REPO_ROOT, 'dist');
const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapFor(file: string): SourceMap | null {
  let map = sourceMaps.get(file);
  if (map === undefined) {
    const mapFile = `${file}.map`;
    map = existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]) : null;
    sourceMaps.set(file, map);
  }
  return map;
}

/** `functionName (file:line)`, with cairn's compiled files (dist/) shown at their TypeScript source. */
function describeFrame(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (frame.url === '') return name;
  let file = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url;
  let line = frame.lineNumber + 1;
  if (file.startsWith(REPO_ROOT)) {
    const map = file.startsWith(COMPILED_DIR) ? sourceMapFor(file) : null;
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry !== undefined && 'originalSource' in entry && entry.originalSource) {
      const original = entry.originalSource;
      file = original.startsWith('file://') ? fileURLToPath(original) : isAbsolute(original) ? original : resolve(dirname(file), original);
      line = entry.originalLine + 1;
    }
    file = relative(REPO_ROOT, file);
  }
  return `${name} (${file}:${line})`;
}

/** Self and total time per function (total counts a function once per sample, however deep it recurses). */
export function summariseProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const keyOf = new Map(profile.nodes.map((n) => [n.id, describeFrame(n.callFrame)]));
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const own = keyOf.get(id) ?? '?';
    self.set(own, (self.get(own) ?? 0) + ms);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node && node.callFrame.functionName !== '(root)') onStack.add(keyOf.get(at) ?? '?');
    }
    for (const key of onStack) total.set(key, (total.get(key) ?? 0) + ms);
  });
  const costs = [...new Set([...self.keys(), ...total.keys()])].map((where) => ({ where, selfMs: self.get(where) ?? 0, totalMs: total.get(where) ?? 0 }));
  return {
    durationMs: (profile.endTime - profile.startTime) / 1000,
    bySelf: [...costs].sort((a, b) => b.selfMs - a.selfMs).slice(0, top),
    byTotal: [...costs].sort((a, b) => b.totalMs - a.totalMs).slice(0, top),
  };
}

/** The summary as lines to print. */
export function formatProfileSummary(summary: ProfileSummary): string[] {
  const row = (c: FunctionCost): string => `  ${c.selfMs.toFixed(0).padStart(7)} ms ${c.totalMs.toFixed(0).padStart(7)} ms  ${c.where}`;
  return [
    `profile of ${(summary.durationMs / 1000).toFixed(2)} s`,
    'by self time:       self     total',
    ...summary.bySelf.map(row),
    'by total time:      self     total',
    ...summary.byTotal.map(row),
  ];
}

/** Reads a .cpuprofile file and summarises it. */
export function summariseProfileFile(file: string, top = 20): ProfileSummary {
  return summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top);
}

/** Node names profiles CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile; the main thread is 0. */
function isMainThreadProfile(name: string): boolean {
  const parts = name.split('.');
  return parts.length === 7 && parts[4] === '0' && parts[6] === 'cpuprofile';
}

/** The newest main-thread profile of each folder under `root`, summarised, as lines to print. */
export function summariseProfileFolders(root: string, top: number): string[] {
  if (!existsSync(root)) return [];
  const lines: string[] = [];
  for (const folder of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(root, e.name))) {
    const files = readdirSync(folder).filter(isMainThreadProfile).map((f) => join(folder, f));
    const main = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (main === undefined) continue;
    lines.push(`${relative(root, folder)} (${relative(root, main)}):`, ...formatProfileSummary(summariseProfileFile(main, top)).map((l) => `  ${l}`));
  }
  return lines;
}

function main(): void {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string' } }, allowPositionals: true });
  const top = Number(values.top ?? '20');
  for (const file of positionals) {
    console.log(`${file}:`);
    for (const line of formatProfileSummary(summariseProfileFile(file, top))) console.log(line);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
