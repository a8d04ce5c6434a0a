/**
 * @module Splits SQLite SQL text into tokens — string literals, quoted identifiers, comments,
 * parameters, words, numbers, punctuation, whitespace — so the PostgreSQL dialect rewrites words
 * and parameters and never what is inside a literal, an identifier or a comment.
 */

export type SqlTokenKind = 'space' | 'comment' | 'string' | 'quoted-identifier' | 'parameter' | 'word' | 'number' | 'punctuation';

export interface SqlToken {
  kind: SqlTokenKind;
  text: string;
}

const WORD = /[A-Za-z_][A-Za-z0-9_$]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const SPACE = /\s+/y;
/** `?`, `?NNN`, `@name`, `:name`, `$name` (SQLite's parameter forms). */
const PARAMETER = /\?\d*|[@:$][A-Za-z_][A-Za-z0-9_]*/y;

function matchAt(pattern: RegExp, sql: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(sql)?.[0];
}

/** The end (exclusive) of a quoted run opened at `at` by `quote`; a doubled quote is an escaped one. */
function quotedEnd(sql: string, at: number, quote: string): number {
  let i = at + 1;
  for (;;) {
    const close = sql.indexOf(quote, i);
    if (close === -1) throw new Error(`unterminated ${quote} in SQL: ${sql.slice(at, at + 40)}`);
    if (sql[close + 1] === quote) i = close + 2;
    else return close + 1;
  }
}

export function tokenize(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let at = 0;
  while (at < sql.length) {
    const char = sql[at] ?? '';
    const next = sql[at + 1] ?? '';
    let kind: SqlTokenKind;
    let end: number;
    if (char === "'") {
      kind = 'string';
      end = quotedEnd(sql, at, "'");
    } else if (char === '"') {
      kind = 'quoted-identifier';
      end = quotedEnd(sql, at, '"');
    } else if (char === '-' && next === '-') {
      kind = 'comment';
      const newline = sql.indexOf('\n', at);
      end = newline === -1 ? sql.length : newline;
    } else if (char === '/' && next === '*') {
      kind = 'comment';
      const close = sql.indexOf('*/', at + 2);
      if (close === -1) throw new Error(`unterminated /* comment in SQL: ${sql.slice(at, at + 40)}`);
      end = close + 2;
    } else {
      const space = matchAt(SPACE, sql, at);
      const parameter = space === undefined ? matchAt(PARAMETER, sql, at) : undefined;
      const word = space === undefined && parameter === undefined ? matchAt(WORD, sql, at) : undefined;
      const number = space === undefined && parameter === undefined && word === undefined ? matchAt(NUMBER, sql, at) : undefined;
      if (space !== undefined) [kind, end] = ['space', at + space.length];
      else if (parameter !== undefined) [kind, end] = ['parameter', at + parameter.length];
      else if (word !== undefined) [kind, end] = ['word', at + word.length];
      else if (number !== undefined) [kind, end] = ['number', at + number.length];
      else [kind, end] = ['punctuation', at + 1];
    }
    tokens.push({ kind, text: sql.slice(at, end) });
    at = end;
  }
  return tokens;
}

/** Whether a token carries meaning (not whitespace or a comment). */
export function isSignificant(token: SqlToken | undefined): boolean {
  return token !== undefined && token.kind !== 'space' && token.kind !== 'comment';
}

/** The index of the first significant token at or after `from` (before `end`), or `end`. */
export function nextSignificant(tokens: readonly SqlToken[], from: number, end = tokens.length): number {
  let i = from;
  while (i < end && !isSignificant(tokens[i])) i++;
  return i;
}

/** Whether `token` is the word `word` (SQL words are case-insensitive). */
export function isWord(token: SqlToken | undefined, word: string): boolean {
  return token?.kind === 'word' && token.text.toUpperCase() === word;
}

/** The index of the `)` closing the `(` at `open`. */
export function closingParenthesis(tokens: readonly SqlToken[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const text = tokens[i]?.kind === 'punctuation' ? tokens[i]?.text : undefined;
    if (text === '(') depth++;
    else if (text === ')' && --depth === 0) return i;
  }
  throw new Error('unbalanced parentheses in SQL');
}

/** The argument ranges [start, end) of the call whose `(` is at `open` and `)` at `close`, split at top-level commas. */
export function argumentRanges(tokens: readonly SqlToken[], open: number, close: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const token = tokens[i];
    if (token?.kind !== 'punctuation') continue;
    if (token.text === '(') depth++;
    else if (token.text === ')') depth--;
    else if (token.text === ',' && depth === 0) {
      ranges.push([start, i]);
      start = i + 1;
    }
  }
  if (nextSignificant(tokens, start, close) < close || ranges.length > 0) ranges.push([start, close]);
  return ranges;
}
