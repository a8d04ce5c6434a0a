/**
 * @module The `yaml` library, loaded the first time something needs it. Valid manifests are read
 * on the fast path (js-yaml) and never need it; it is only for the exact path, positions of
 * errors and YAML output. Loading it takes about 60 ms, which `cairn validate` of a valid file
 * would otherwise pay at every start. Types come from `import type`, which loads nothing.
 */
import { createRequire } from 'node:module';
import type * as YamlLibrary from 'yaml';

let loaded: typeof YamlLibrary | undefined;

/** The `yaml` module (its CommonJS build, the one `import` resolves to under Node as well). */
export function yaml(): typeof YamlLibrary {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof YamlLibrary;
  return loaded;
}
