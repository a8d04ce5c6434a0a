/**
 * @module Turns the store's SQLite SQL into PostgreSQL 15: parameters become `$n`, SQLite's types,
 * functions and conflict clauses become PostgreSQL's; what has no faithful counterpart is refused
 * with a message rather than guessed at. Each distinct text is translated once.
 */
import { everyElementPath, parseSqliteJsonPath, textArrayPath } from './json-paths.js';
import { argumentRanges, closingParenthesis, isWord, nextSignificant, tokenize, type SqlToken } from './sql-tokens.js';

export interface TranslatedSql {
  text: string;
  /** names of @name parameters in $n order, or undefined when positional ? */
  names?: string[];
  count: number;
}

/** A collation for SQLite's `COLLATE NOCASE`: case-insensitive equality, order and uniqueness. */
export const NOCASE_COLLATION = 'cairn_nocase';
const CREATE_NOCASE_COLLATION = `CREATE COLLATION IF NOT EXISTS ${NOCASE_COLLATION} (provider = icu, locale = 'und-u-ks-level2', deterministic = false);\n`;

/** The only strftime cairn uses: now as RFC 3339 UTC text with milliseconds (what nowIso() gives). */
const RFC3339_NOW_FORMAT = '%Y-%m-%dT%H:%M:%fZ';
const RFC3339_NOW = `to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** SQLite functions with no translation here: a statement using one is refused. */
const UNTRANSLATED_FUNCTIONS = new Set(['DATETIME', 'DATE', 'TIME', 'JULIANDAY', 'UNIXEPOCH', 'PRINTF', 'INSTR', 'GROUP_CONCAT', 'TOTAL', 'TYPEOF', 'CHANGES', 'LAST_INSERT_ROWID', 'RANDOMBLOB', 'HEX', 'ZEROBLOB']);

/** What a SQLite word becomes in PostgreSQL when nothing around it matters. */
const RENAMED_WORDS = new Map([
  ['INTEGER', 'BIGINT'], // cairn's integers are ms timestamps and counters: they overflow int4
  ['REAL', 'DOUBLE PRECISION'],
  ['BLOB', 'BYTEA'],
  ['LIKE', 'ILIKE'], // SQLite's LIKE ignores case
]);

class PostgresTranslation {
  private readonly tokens: SqlToken[];
  private readonly names: string[] = [];
  private readonly numberOfName = new Map<string, number>();
  /** Named parameters whose every use is an IS [NOT] NULL test: PostgreSQL cannot infer their type. */
  private readonly onlyNullTested = new Set<string>();
  private positionalCount = 0;
  private usesNocase = false;
  private ignoreConflicts = false;

  constructor(private readonly sqlite: string) {
    this.tokens = tokenize(sqlite);
    this.findOnlyNullTested();
  }

  run(): TranslatedSql {
    // What follows the last significant token (whitespace, a comment) stays after ON CONFLICT.
    let last = this.tokens.length - 1;
    while (last >= 0 && nextSignificant(this.tokens, last) !== last) last--;
    let text = this.range(0, last + 1);
    if (this.ignoreConflicts) text += ' ON CONFLICT DO NOTHING';
    text += this.range(last + 1, this.tokens.length);
    if (this.usesNocase && this.tokens.some((token) => isWord(token, 'CREATE') || isWord(token, 'ALTER'))) text = CREATE_NOCASE_COLLATION + text;
    if (this.names.length > 0) return { text, names: [...this.names], count: this.names.length };
    return { text, count: this.positionalCount };
  }

  private refuse(why: string): never {
    throw new Error(`cannot translate to PostgreSQL: ${why}, in: ${this.sqlite.trim().slice(0, 200)}`);
  }

  private word(at: number): string {
    return this.tokens[at]?.kind === 'word' ? (this.tokens[at]?.text.toUpperCase() ?? '') : '';
  }

  /** The index after the significant token that follows `at`. */
  private after(at: number): number {
    return nextSignificant(this.tokens, at + 1);
  }

  /** Whether the significant tokens from `at` on are these words. */
  private wordsAt(at: number, words: readonly string[]): number | undefined {
    let i = at;
    for (const word of words) {
      i = nextSignificant(this.tokens, i);
      if (!isWord(this.tokens[i], word)) return undefined;
      i++;
    }
    return i;
  }

  private isNullTest(parameterAt: number): boolean {
    return this.wordsAt(parameterAt + 1, ['IS', 'NULL']) !== undefined || this.wordsAt(parameterAt + 1, ['IS', 'NOT', 'NULL']) !== undefined;
  }

  private findOnlyNullTested(): void {
    const usedElsewhere = new Set<string>();
    const nullTestedFirst = new Set<string>();
    this.tokens.forEach((token, i) => {
      if (token.kind !== 'parameter' || token.text.startsWith('?')) return;
      const name = token.text.slice(1);
      if (this.isNullTest(i)) {
        if (!usedElsewhere.has(name)) nullTestedFirst.add(name);
      } else usedElsewhere.add(name);
    });
    for (const name of nullTestedFirst) {
      // PostgreSQL types a parameter where it is first used, and an IS NULL test gives it none.
      if (usedElsewhere.has(name)) this.refuse(`@${name} is tested for NULL before it is used; put the test after the use, e.g. (x = @${name} OR @${name} IS NULL)`);
      this.onlyNullTested.add(name);
    }
  }

  private parameter(at: number): string {
    const text = this.tokens[at]?.text ?? '';
    let number: number;
    let untyped: boolean;
    if (text.startsWith('?')) {
      if (this.names.length > 0) this.refuse('positional and named parameters are mixed');
      number = text.length > 1 ? Number(text.slice(1)) : this.positionalCount + 1;
      this.positionalCount = Math.max(this.positionalCount, number);
      untyped = true;
    } else {
      if (this.positionalCount > 0) this.refuse('positional and named parameters are mixed');
      const name = text.slice(1);
      number = this.numberOfName.get(name) ?? this.names.push(name);
      this.numberOfName.set(name, number);
      untyped = this.onlyNullTested.has(name);
    }
    // Sent as text by the client, any value can be read as text to be tested for NULL.
    return untyped && this.isNullTest(at) ? `$${number}::text` : `$${number}`;
  }

  /** The translation of tokens [start, end). */
  private range(start: number, end: number): string {
    let out = '';
    let i = start;
    while (i < end) {
      const token = this.tokens[i];
      if (token === undefined) break;
      if (token.kind === 'parameter') {
        out += this.parameter(i);
        i++;
      } else if (this.ignoreConflicts && ((token.kind === 'punctuation' && token.text === ';') || isWord(token, 'RETURNING'))) {
        // INSERT OR IGNORE's ON CONFLICT DO NOTHING goes at the end of its statement, before any RETURNING.
        out += `${/\s$/.test(out) ? '' : ' '}ON CONFLICT DO NOTHING${token.text === ';' ? '' : ' '}${token.text}`;
        this.ignoreConflicts = false;
        i++;
      } else if (token.kind === 'word') {
        const [text, next] = this.wordRule(i);
        out += text;
        i = next;
      } else {
        out += token.text;
        i++;
      }
    }
    return out;
  }

  /** The translation of the word at `at` (with what it takes along) and the index after it. */
  private wordRule(at: number): [string, number] {
    const word = this.word(at);
    const open = this.after(at);
    const isCall = this.tokens[open]?.text === '(';
    const identity = this.wordsAt(at, ['INTEGER', 'PRIMARY', 'KEY', 'AUTOINCREMENT']);
    if (identity !== undefined) return ['BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY', identity];
    const withoutRowid = this.wordsAt(at, ['WITHOUT', 'ROWID']);
    if (withoutRowid !== undefined) return ['', withoutRowid];
    const nocase = this.wordsAt(at, ['COLLATE', 'NOCASE']);
    if (nocase !== undefined) {
      this.usesNocase = true;
      return [`COLLATE ${NOCASE_COLLATION}`, nocase];
    }
    if (word === 'BEGIN' && ['IMMEDIATE', 'DEFERRED', 'EXCLUSIVE'].includes(this.word(open))) return ['BEGIN', open + 1];
    if (word === 'INSERT' && this.word(open) === 'OR') return this.insertOr(this.after(open));
    if (word === 'REPLACE' && !isCall) this.refuse('REPLACE INTO deletes the conflicting row first; write INSERT … ON CONFLICT (…) DO UPDATE, which both engines accept');
    if (word === 'ROWID' || word === '_ROWID_') this.refuse('PostgreSQL tables have no rowid; order by a column of the table');
    if (word === 'PRAGMA') this.refuse('PRAGMA is SQLite’s own');
    if (word === 'GLOB') this.refuse('GLOB has no translation; use LIKE');
    if (isCall) {
      const call = this.functionRule(word, open);
      if (call !== undefined) return call;
    }
    return [RENAMED_WORDS.get(word) ?? this.tokens[at]?.text ?? '', at + 1];
  }

  private insertOr(conflictWordAt: number): [string, number] {
    const onConflict = this.word(conflictWordAt);
    if (onConflict !== 'IGNORE') this.refuse(`INSERT OR ${onConflict} has no translation; write INSERT … ON CONFLICT (…) DO UPDATE, which both engines accept`);
    this.ignoreConflicts = true;
    return ['INSERT', conflictWordAt + 1];
  }

  /** Rewrites of SQLite's functions; undefined leaves the call as it is. */
  private functionRule(name: string, open: number): [string, number] | undefined {
    const close = closingParenthesis(this.tokens, open);
    const args = argumentRanges(this.tokens, open, close);
    const translatedArgs = (): string[] => args.map(([start, end]) => this.range(start, end).trim());
    switch (name) {
      case 'IFNULL':
        return [`COALESCE(${translatedArgs().join(', ')})`, close + 1];
      case 'MAX':
      case 'MIN':
        return args.length < 2 ? undefined : [`${name === 'MAX' ? 'GREATEST' : 'LEAST'}(${translatedArgs().join(', ')})`, close + 1];
      case 'STRFTIME': {
        const literals = args.map(([start, end]) => this.stringArgument(start, end));
        if (literals.length !== 2 || literals[0] !== RFC3339_NOW_FORMAT || literals[1] !== 'now') {
          this.refuse(`only strftime('${RFC3339_NOW_FORMAT}', 'now') has a translation`);
        }
        return [RFC3339_NOW, close + 1];
      }
      case 'JSON_EXTRACT': {
        const [document, path, ...more] = args;
        if (document === undefined || path === undefined || more.length > 0) this.refuse('json_extract translates with one document and one path');
        const steps = parseSqliteJsonPath(this.stringArgument(path[0], path[1]));
        return [`((${this.range(document[0], document[1]).trim()})::jsonb #>> ${textArrayPath(steps)})`, close + 1];
      }
      case 'JSON_EACH': {
        const [document, path, ...more] = args;
        if (document === undefined || more.length > 0) this.refuse('json_each translates with one document and at most one path');
        const steps = path === undefined ? [] : parseSqliteJsonPath(this.stringArgument(path[0], path[1]));
        // Only `value` (as text, like SQLite's for strings and numbers) is offered, under the table name json_each.
        const values = `(SELECT element #>> '{}' AS value FROM jsonb_path_query((${this.range(document[0], document[1]).trim()})::jsonb, ${everyElementPath(steps)}) AS elements (element))`;
        const aliasAt = this.after(close);
        const aliased = isWord(this.tokens[aliasAt], 'AS') || (this.tokens[aliasAt]?.kind === 'word' && !CLAUSE_WORDS.has(this.word(aliasAt)));
        return [aliased ? values : `${values} AS json_each`, close + 1];
      }
      default:
        if (name.startsWith('JSON') || UNTRANSLATED_FUNCTIONS.has(name)) this.refuse(`the SQLite function ${name.toLowerCase()}() has no translation`);
        return undefined;
    }
  }

  /** The text of the one string literal in tokens [start, end). */
  private stringArgument(start: number, end: number): string {
    const at = nextSignificant(this.tokens, start, end);
    const token = this.tokens[at];
    if (token?.kind !== 'string' || nextSignificant(this.tokens, at + 1, end) < end) this.refuse('a JSON path or format must be a string literal');
    return token.text.slice(1, -1).replaceAll("''", "'");
  }
}

/** Words that may follow a table in FROM without being its alias. */
const CLAUSE_WORDS = new Set(['WHERE', 'JOIN', 'LEFT', 'RIGHT', 'INNER', 'CROSS', 'FULL', 'ON', 'GROUP', 'ORDER', 'LIMIT', 'UNION', 'EXCEPT', 'INTERSECT', 'HAVING', 'WINDOW', 'NATURAL']);

const translated = new Map<string, TranslatedSql>();

/** The PostgreSQL text of `sqliteSql` and how its parameters are numbered (each distinct text is translated once). */
export function toPostgres(sqliteSql: string): TranslatedSql {
  let result = translated.get(sqliteSql);
  if (result === undefined) {
    result = new PostgresTranslation(sqliteSql).run();
    translated.set(sqliteSql, result);
  }
  return result;
}
