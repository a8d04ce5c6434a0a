/**
 * @module Every SQL text written in src/store/*.ts (tests and fixtures aside), read from the source
 * with TypeScript's parser: each string or template literal that starts a statement, with the
 * constants it interpolates (COLUMNS, RESOURCE_FROM, ...) filled in. A text that interpolates a
 * value known only when it runs (a table chosen by the caller, a WHERE built from a filter) is
 * `dynamic`: it is resolved with values the test supplies for those expressions.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const STORE_DIR = fileURLToPath(new URL('../../src/store', import.meta.url));

const STATEMENT_START = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE|CREATE|ALTER|DROP|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/;

/** Values for the source text of interpolated expressions, e.g. `{ 'this.table': 'alert_deliveries' }`. */
export type Interpolations = Readonly<Record<string, string>>;

export interface StoreSqlSite {
  /** `file.ts:line` */
  readonly where: string;
  readonly file: string;
  /** The SQL with every interpolation filled in, or undefined when one depends on a runtime value. */
  readonly text: string | undefined;
  /** The source text of the expressions that depend on runtime values. */
  readonly dynamic: readonly string[];
  /** The SQL with these values for the dynamic expressions, or undefined when some stay unknown. */
  resolve(values: Interpolations): string | undefined;
}

interface SourceFileContext {
  file: string;
  source: ts.SourceFile;
  /** Every `const name = <expression>` in the file, by name (a name declared twice is left out). */
  constants: Map<string, ts.Expression>;
  /** Names imported from other store modules: local name → [file, exported name]. */
  imports: Map<string, [string, string]>;
}

const contexts = new Map<string, SourceFileContext>();

function contextOf(file: string): SourceFileContext {
  const known = contexts.get(file);
  if (known) return known;
  const source = ts.createSourceFile(file, readFileSync(join(STORE_DIR, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const constants = new Map<string, ts.Expression>();
  const declaredTwice = new Set<string>();
  const imports = new Map<string, [string, string]>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.Const) !== 0) {
      for (const declaration of node.declarations) {
        if (!ts.isIdentifier(declaration.name) || declaration.initializer === undefined) continue;
        const name = declaration.name.text;
        if (constants.has(name)) declaredTwice.add(name);
        constants.set(name, declaration.initializer);
      }
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^\.\/[^/]+\.js$/.test(node.moduleSpecifier.text)) {
      const from = node.moduleSpecifier.text.slice(2).replace(/\.js$/, '.ts');
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) imports.set(element.name.text, [from, (element.propertyName ?? element.name).text]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const name of declaredTwice) constants.delete(name);
  const context = { file, source, constants, imports };
  contexts.set(file, context);
  return context;
}

/** The string `expression` always has, or undefined (its source text then goes to `unknown`). */
function evaluate(expression: ts.Expression, context: SourceFileContext, values: Interpolations, unknown: string[]): string | undefined {
  const written = expression.getText(context.source);
  if (written in values) return values[written];
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
  if (ts.isParenthesizedExpression(expression)) return evaluate(expression.expression, context, values, unknown);
  if (ts.isTemplateExpression(expression)) {
    const parts = [expression.head.text];
    for (const span of expression.templateSpans) parts.push(evaluate(span.expression, context, values, unknown) ?? '\u0000', span.literal.text);
    const text = parts.join('');
    return text.includes('\u0000') ? undefined : text;
  }
  if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = evaluate(expression.left, context, values, unknown);
    const right = evaluate(expression.right, context, values, unknown);
    return left === undefined || right === undefined ? undefined : left + right;
  }
  if (ts.isIdentifier(expression)) {
    // A constant whose value is not known is named as itself, not as its initializer.
    const constant = context.constants.get(expression.text);
    const imported = context.imports.get(expression.text);
    const other = imported ? contextOf(imported[0]) : undefined;
    const exported = imported && other ? other.constants.get(imported[1]) : undefined;
    const value = constant ? evaluate(constant, context, values, []) : exported && other ? evaluate(exported, other, values, []) : undefined;
    if (value !== undefined) return value;
  }
  unknown.push(written);
  return undefined;
}

function isSqlLiteral(node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return STATEMENT_START.test(node.text);
  return ts.isTemplateExpression(node) && STATEMENT_START.test(node.head.text);
}

/** The store's modules: src/store/*.ts without tests and fixtures. */
export function storeModules(): string[] {
  return readdirSync(STORE_DIR)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('fixture'))
    .sort();
}

/**
 * The SQL sites of one store module, and the literal first arguments of its `.prepare(`, `.exec(`
 * and `sql.get(` calls that were not taken for SQL (which should be none).
 */
export function sqlSitesOf(file: string): { sites: StoreSqlSite[]; missed: string[] } {
  const context = contextOf(file);
  const sites: StoreSqlSite[] = [];
  const taken = new Set<ts.Node>();
  const calls: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    if (isSqlLiteral(node)) {
      taken.add(node);
      const unknown: string[] = [];
      const text = evaluate(node, context, {}, unknown);
      sites.push({
        where: `${file}:${context.source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`,
        file,
        text,
        dynamic: unknown,
        resolve: (values) => evaluate(node, context, values, []),
      });
      return;
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = node.expression.expression.getText(context.source);
      const first = node.arguments[0];
      const literal = first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first) || ts.isTemplateExpression(first));
      if (literal && (method === 'prepare' || method === 'exec' || (method === 'get' && /sql$/i.test(receiver)))) calls.push(first);
    }
    ts.forEachChild(node, visit);
  };
  visit(context.source);
  const missed = calls.filter((node) => !taken.has(node)).map((node) => `${file}: ${node.getText(context.source).slice(0, 80)}`);
  return { sites, missed };
}
