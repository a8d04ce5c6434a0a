/**
 * @module `yaml` is loaded only when needed: a valid set read on the fast path leaves it
 * unloaded (what makes `cairn validate` start fast), and an error's position loads it. Checked
 * in a fresh Node process, since this one has loaded it already.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const VALID = 'apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: here\nspec:\n  vendor: local\n';
const INVALID = VALID.replace('name: here', 'name: Not_A_Label');

/** Loads `text` in a fresh process and answers whether `yaml` was loaded, and the first error. */
function loadInFreshProcess(text: string): { yamlLoaded: boolean; firstError: string | null } {
  const script = `
    import { createRequire } from 'node:module';
    const { loadManifestSources, formatLoadErrors } = await import(${JSON.stringify(new URL('./manifest-loader.ts', import.meta.url).href)});
    const result = loadManifestSources([{ file: 'm.yaml', text: ${JSON.stringify(text)} }]);
    const cache = createRequire(import.meta.url).cache;
    const yamlLoaded = Object.keys(cache).some((path) => path.includes('/node_modules/yaml/'));
    console.log(JSON.stringify({ yamlLoaded, firstError: formatLoadErrors(result)[0] ?? null }));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { yamlLoaded: boolean; firstError: string | null };
}

describe('the yaml library', () => {
  it('is not loaded to read a valid manifest', () => {
    expect(loadInFreshProcess(VALID)).toEqual({ yamlLoaded: false, firstError: null });
  });

  it('is loaded to say where an error is', () => {
    const { yamlLoaded, firstError } = loadInFreshProcess(INVALID);
    expect(yamlLoaded).toBe(true);
    expect(firstError).toMatch(/^m\.yaml:4:9 Provider\/Not_A_Label metadata\.name: /);
  });
});
