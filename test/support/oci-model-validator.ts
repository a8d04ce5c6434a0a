/**
 * @module A validator of JSON bodies against the OCI SDK's own models. OCI publishes no API
 * document cairn could load (vendor-apis has none), but every OCI SDK package (oci-core,
 * oci-identity, oci-psql, …) declares each model as a TypeScript interface in
 * `lib/model/<kebab-name>.d.ts`: its fields, which are required (no `?`), their types (string,
 * number, boolean, Date as an RFC 3339 string, arrays, maps, nested models, unions of
 * polymorphic models) and its enums (`namespace Instance { enum LifecycleState … }`). This reads
 * those declarations with the TypeScript compiler's parser and checks a body against them: a
 * missing required field, a field of the wrong type, an enum value the model lacks, or a field
 * the model does not have is a problem, named by its path. Generic for every OCI service: give
 * it the package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';

interface ModelFile {
  interfaces: Map<string, ts.InterfaceDeclaration>;
  enums: Map<string, string[]>;
}

export class OciModelValidator {
  private readonly dir: string;
  private readonly files = new Map<string, ModelFile>();
  private fileNames: string[] | undefined;

  /** `pkg`: the SDK package whose models to read, e.g. `oci-core`. */
  constructor(readonly pkg: string) {
    const require = createRequire(import.meta.url);
    this.dir = join(dirname(require.resolve(`${pkg}/package.json`)), 'lib', 'model');
  }

  /** The problems of `value` as the model `name` (e.g. `LaunchInstanceDetails`); empty when it fits. */
  check(name: string, value: unknown, path = name): string[] {
    return this.checkModel(name, value, path);
  }

  /** The problems of `value` as an array of the model `name`. */
  checkArray(name: string, value: unknown, path = `${name}[]`): string[] {
    if (!Array.isArray(value)) return [`${path}: expected an array of ${name}, got ${kind(value)}`];
    return value.flatMap((item, i) => this.checkModel(name, item, `${path}[${i}]`));
  }

  private load(name: string): ModelFile | undefined {
    const kebab = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z])([A-Z][a-z])/g, '$1-$2').toLowerCase();
    const first = this.parse(`${kebab}.d.ts`);
    if (first?.interfaces.has(name)) return first;
    this.fileNames ??= readdirSync(this.dir).filter((f) => f.endsWith('.d.ts'));
    for (const file of this.fileNames) {
      if (readFileSync(join(this.dir, file), 'utf8').includes(`export interface ${name} `)) return this.parse(file);
    }
    return undefined;
  }

  private parse(file: string): ModelFile | undefined {
    if (this.files.has(file)) return this.files.get(file);
    let text: string;
    try {
      text = readFileSync(join(this.dir, file), 'utf8');
    } catch {
      return undefined;
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const parsed: ModelFile = { interfaces: new Map(), enums: new Map() };
    for (const statement of source.statements) {
      if (ts.isInterfaceDeclaration(statement)) parsed.interfaces.set(statement.name.text, statement);
      if (ts.isModuleDeclaration(statement) && statement.body && ts.isModuleBlock(statement.body)) {
        for (const inner of statement.body.statements) {
          if (ts.isEnumDeclaration(inner)) {
            const values = inner.members.map((m) => (m.initializer && ts.isStringLiteral(m.initializer) ? m.initializer.text : '')).filter((v) => v !== '' && v !== 'UNKNOWN_VALUE');
            parsed.enums.set(`${statement.name.text}.${inner.name.text}`, values);
          }
        }
      }
    }
    this.files.set(file, parsed);
    return parsed;
  }

  private members(name: string): Map<string, { optional: boolean; type: ts.TypeNode; file: ModelFile }> | undefined {
    const file = this.load(name);
    const declaration = file?.interfaces.get(name);
    if (!file || !declaration) return undefined;
    const result = new Map<string, { optional: boolean; type: ts.TypeNode; file: ModelFile }>();
    for (const clause of declaration.heritageClauses ?? []) {
      for (const base of clause.types) {
        const baseName = (ts.isPropertyAccessExpression(base.expression) ? base.expression.name.text : ts.isIdentifier(base.expression) ? base.expression.text : '');
        for (const [k, v] of this.members(baseName) ?? []) result.set(k, v);
      }
    }
    for (const member of declaration.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      if (!ts.isStringLiteral(member.name) && !ts.isIdentifier(member.name)) continue;
      const key = member.name.text;
      result.set(key, { optional: member.questionToken !== undefined, type: member.type, file });
    }
    return result;
  }

  private checkModel(name: string, value: unknown, path: string): string[] {
    const members = this.members(name);
    if (!members) return [`${path}: ${this.pkg} has no model ${name}`];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected a ${name} object, got ${kind(value)}`];
    const problems: string[] = [];
    const record = value as Record<string, unknown>;
    for (const [key, member] of members) {
      const field = record[key];
      if (field === undefined || field === null) {
        if (!member.optional) problems.push(`${path}.${key}: required by ${name}, missing`);
        continue;
      }
      problems.push(...this.checkType(member.type, field, `${path}.${key}`, member.file));
    }
    for (const key of Object.keys(record)) if (!members.has(key)) problems.push(`${path}.${key}: not a field of ${name}`);
    return problems;
  }

  private checkType(type: ts.TypeNode, value: unknown, path: string, file: ModelFile): string[] {
    switch (type.kind) {
      case ts.SyntaxKind.StringKeyword: return typeof value === 'string' ? [] : [`${path}: expected a string, got ${kind(value)}`];
      case ts.SyntaxKind.NumberKeyword: return typeof value === 'number' && Number.isFinite(value) ? [] : [`${path}: expected a number, got ${kind(value)}`];
      case ts.SyntaxKind.BooleanKeyword: return typeof value === 'boolean' ? [] : [`${path}: expected a boolean, got ${kind(value)}`];
      case ts.SyntaxKind.AnyKeyword: case ts.SyntaxKind.UnknownKeyword: return [];
    }
    if (ts.isParenthesizedTypeNode(type)) return this.checkType(type.type, value, path, file);
    if (ts.isArrayTypeNode(type)) return this.checkArrayOf(type.elementType, value, path, file);
    if (ts.isUnionTypeNode(type)) {
      const tries = type.types.map((t) => this.checkType(t, value, path, file));
      return tries.some((t) => t.length === 0) ? [] : (tries.sort((a, b) => a.length - b.length)[0] ?? []);
    }
    if (ts.isTypeLiteralNode(type)) {
      const index = type.members.find(ts.isIndexSignatureDeclaration);
      if (!index?.type) return [`${path}: the model's type (a literal without an index signature) is not understood by this validator`];
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected a map, got ${kind(value)}`];
      return Object.entries(value).flatMap(([k, v]) => this.checkType(index.type, v, `${path}.${k}`, file));
    }
    if (ts.isTypeReferenceNode(type)) {
      const name = entityName(type.typeName);
      if (name === 'Date') return typeof value === 'string' && !Number.isNaN(Date.parse(value)) && /^\d{4}-\d\d-\d\dT/.test(value) ? [] : [`${path}: expected an RFC 3339 date-time, got ${JSON.stringify(value)}`];
      if (name === 'Array' && type.typeArguments?.[0]) return this.checkArrayOf(type.typeArguments[0], value, path, file);
      const enumValues = file.enums.get(name);
      if (enumValues) return typeof value === 'string' && enumValues.includes(value) ? [] : [`${path}: ${JSON.stringify(value)} is not one of ${name}: ${enumValues.join(', ')}`];
      return this.checkModel(name.replace(/^model\./, ''), value, path);
    }
    return [`${path}: the model's type (${ts.SyntaxKind[type.kind]}) is not understood by this validator`];
  }

  private checkArrayOf(element: ts.TypeNode, value: unknown, path: string, file: ModelFile): string[] {
    if (!Array.isArray(value)) return [`${path}: expected an array, got ${kind(value)}`];
    return value.flatMap((item, i) => this.checkType(element, item, `${path}[${i}]`, file));
  }
}

/** `model.Shape`, `Instance.LifecycleState`: a qualified name as written. */
function entityName(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityName(name.left)}.${name.right.text}`;
}

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
