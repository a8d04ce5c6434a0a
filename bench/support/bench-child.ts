/**
 * @module Child entry (run compiled, from dist/bench/) that runs one benchmark in a fresh
 * process and writes its results as JSON to a file; progress goes to stderr.
 * Usage: node dist/bench/support/bench-child.js NAME OUT.json
 */
import { writeFileSync } from 'node:fs';
import { BENCHMARKS } from '../benchmarks.js';

async function main(): Promise<void> {
  const [name, out] = process.argv.slice(2);
  const benchmark = BENCHMARKS.find((b) => b.name === name);
  if (!benchmark || out === undefined) throw new Error(`usage: bench-child NAME OUT.json (NAME: ${BENCHMARKS.map((b) => b.name).join(', ')})`);
  const result = await benchmark.run((line) => process.stderr.write(`  · ${line}\n`));
  writeFileSync(out, JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
