/**
 * @module Server-side apply on cairn's Kubernetes endpoint. A field manager owns the leaves of
 * spec, labels and annotations it applied last time (kept per resource in the store). Applying
 * again sets what it sends, removes what it owned and no longer sends (unless someone else
 * changed it since), and reports a conflict for each field it would change that someone else
 * set — unless forced. Lists are atomic leaves, as for custom resources without list-type.
 */
import { jsonEqual } from '../../model/canonical-json.js';

type Json = Record<string, unknown>;
type Path = readonly string[];

/** The roots under which fields are owned. */
const OWNED_ROOTS: readonly Path[] = [['spec'], ['metadata', 'labels'], ['metadata', 'annotations']];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(object: unknown, path: Path): unknown {
  let node = object;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Every leaf (scalar, list or empty object) under the owned roots, with its path. */
export function ownedLeaves(object: Json): Array<{ path: Path; value: unknown }> {
  const leaves: Array<{ path: Path; value: unknown }> = [];
  const walk = (node: unknown, path: Path): void => {
    if (isObject(node) && Object.keys(node).length > 0) {
      for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
    } else if (node !== undefined) {
      leaves.push({ path, value: node });
    }
  };
  for (const root of OWNED_ROOTS) walk(at(object, root), root);
  return leaves;
}

/** `.spec.source.git.url`, the way kubectl names a field. */
export function fieldName(path: Path): string {
  return path.map((p) => `.${p}`).join('');
}

function removeLeaf(object: Json, path: Path): void {
  const parents: Json[] = [];
  let node: unknown = object;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node)) return;
    parents.push(node);
    node = node[key];
  }
  if (!isObject(node)) return;
  delete node[path[path.length - 1] ?? ''];
  // Objects emptied by the removal go too.
  for (let i = path.length - 2; i >= 0; i -= 1) {
    const parent = parents[i];
    const key = path[i] ?? '';
    if (parent && isObject(parent[key]) && Object.keys(parent[key]).length === 0 && i >= 1) delete parent[key];
  }
}

function deepMerge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch) || !isObject(target)) return structuredClone(patch);
  const result: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) result[key] = deepMerge(result[key], value);
  return result;
}

export interface ApplyResult {
  object: Json;
  /** Fields someone else set that this apply would change, as `.spec.size`. */
  conflicts: string[];
}

/**
 * `current` after `manager` applies `applied`, given what it applied before (`previous`).
 * With `force`, conflicts are overridden (and reported empty).
 */
export function serverSideApply(current: Json, previous: Json | undefined, applied: Json, force: boolean): ApplyResult {
  const sent = ownedLeaves(applied);
  const conflicts = force
    ? []
    : sent.flatMap(({ path, value }) => {
        const live = at(current, path);
        if (live === undefined || jsonEqual(live, value)) return [];
        const before = previous ? at(previous, path) : undefined;
        return before !== undefined && jsonEqual(live, before) ? [] : [fieldName(path)];
      });
  const object = structuredClone(current);
  if (previous) {
    const stillSent = new Set(sent.map((l) => JSON.stringify(l.path)));
    for (const { path, value } of ownedLeaves(previous)) {
      if (!stillSent.has(JSON.stringify(path)) && jsonEqual(at(object, path), value)) removeLeaf(object, path);
    }
  }
  return { object: deepMerge(object, applied) as Json, conflicts };
}
