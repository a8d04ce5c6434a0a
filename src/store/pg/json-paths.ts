/**
 * @module SQLite JSON paths (`$.a.b`, `$.list[0]`, `$."odd key"`) read into steps, and written
 * again as PostgreSQL wants them: a text-array path for `#>>`, an SQL/JSON path for `jsonb_path_query`.
 */

export type JsonPathStep = { key: string } | { index: number };

const KEY = /^\.([A-Za-z_$][A-Za-z0-9_$]*)/;
const QUOTED_KEY = /^\."((?:[^"\\]|\\.)*)"/;
const INDEX = /^\[(\d+)\]/;

/** The steps of a SQLite JSON path; refuses what has no PostgreSQL counterpart here (`#-1`, `$.a[#]`). */
export function parseSqliteJsonPath(path: string): JsonPathStep[] {
  if (!path.startsWith('$')) throw new Error(`the JSON path ${path} does not start with $`);
  const steps: JsonPathStep[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    const quoted = QUOTED_KEY.exec(rest);
    const key = quoted ? undefined : KEY.exec(rest);
    const index = quoted || key ? undefined : INDEX.exec(rest);
    if (quoted) steps.push({ key: JSON.parse(`"${quoted[1] ?? ''}"`) as string });
    else if (key) steps.push({ key: key[1] ?? '' });
    else if (index) steps.push({ index: Number(index[1]) });
    else throw new Error(`the JSON path ${path} has a step PostgreSQL's translation does not know: ${rest}`);
    rest = rest.slice((quoted ?? key ?? index)?.[0].length ?? rest.length);
  }
  return steps;
}

/** A SQL string literal of `text`. */
function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The path as a PostgreSQL text-array literal for `#>` / `#>>`: `'{"a","0"}'`. */
export function textArrayPath(steps: readonly JsonPathStep[]): string {
  const elements = steps.map((step) => ('key' in step ? step.key : String(step.index)));
  return sqlString(`{${elements.map((element) => `"${element.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`);
}

/** The path as an SQL/JSON path literal, every element of what it reaches (`'lax $."a"[*]'`). */
export function everyElementPath(steps: readonly JsonPathStep[]): string {
  const path = steps.map((step) => ('key' in step ? `.${JSON.stringify(step.key)}` : `[${step.index}]`)).join('');
  return sqlString(`lax $${path}[*]`);
}
