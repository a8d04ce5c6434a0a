/**
 * @module JSON pointers (RFC 6901) into manifests: building them, splitting them, and showing
 * them to users as dotted field paths (`/spec/databases/1` → `spec.databases[1]`).
 */

/** Escapes one reference token (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends reference tokens to a pointer: `appendPointer('/spec', 'env', 'A/B')` → `/spec/env/A~1B`. */
export function appendPointer(pointer: string, ...tokens: Array<string | number>): string {
  return pointer + tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}

/** The unescaped reference tokens of a pointer; `''` (the whole document) has none. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const PLAIN_FIELD = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * A pointer as users read field paths: dotted keys, `[n]` for list items, and `["key"]` for keys
 * that are not plain words (label keys such as `app.kubernetes.io/name`). Tokens that look like
 * numbers are shown as list items, which is what they are in cairn's schemas.
 */
export function pointerToFieldPath(pointer: string): string {
  let path = '';
  for (const token of pointerTokens(pointer)) {
    if (ARRAY_INDEX.test(token)) path += `[${token}]`;
    else if (PLAIN_FIELD.test(token)) path += path === '' ? token : `.${token}`;
    else path += `[${JSON.stringify(token)}]`;
  }
  return path;
}
