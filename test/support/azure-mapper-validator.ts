/**
 * @module Validates JSON bodies against an Azure SDK's own serializer models. Azure publishes
 * no document cairn copies (its REST specs are per service and version, in another repository);
 * each AutoRest-generated `@azure/arm-*` package carries the models its serializer uses
 * (`models/mappers.js`: every property's wire name — `properties.hardwareProfile` for a flattened
 * one —, type, enum values, required and read-only flags). This walks a body along a mapper and
 * says every field that is unknown, of the wrong type, outside its enum, missing though
 * required, or read-only yet sent in a request. Generic: any arm-* package's mappers, by name.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A core-client mapper, as far as this validator reads it. */
export interface Mapper {
  serializedName?: string;
  required?: boolean;
  readOnly?: boolean;
  nullable?: boolean;
  type: {
    name: string;
    className?: string;
    modelProperties?: Record<string, Mapper>;
    additionalProperties?: Mapper;
    element?: Mapper;
    value?: Mapper;
    allowedValues?: unknown[];
  };
}

export type Mappers = Readonly<Record<string, Mapper>>;

const load = createRequire(import.meta.url);

/** The serializer models of an AutoRest-generated `@azure/arm-*` package (its CommonJS build; the package's exports do not list them). */
export function sdkMappers(packageName: string): Mappers {
  const root = dirname(load.resolve(`${packageName}/package.json`));
  return load(join(root, 'dist', 'commonjs', 'models', 'mappers.js')) as Mappers;
}

export type Direction = 'request' | 'answer';

interface Trie {
  mapper?: Mapper;
  children: Map<string, Trie>;
}

export class AzureMapperValidator {
  constructor(private readonly mappers: Mappers) {}

  /** The problems of `body` as a `className` (empty when it fits); `where` prefixes each. */
  validate(className: string, body: unknown, direction: Direction, where: string): string[] {
    const mapper = this.mappers[className];
    if (!mapper) return [`${where}: no model ${className} in the SDK's mappers`];
    const problems: string[] = [];
    this.check(body, mapper, direction, where, problems);
    return problems;
  }

  private properties(mapper: Mapper): Record<string, Mapper> | undefined {
    if (mapper.type.modelProperties) return mapper.type.modelProperties;
    const named = mapper.type.className === undefined ? undefined : this.mappers[mapper.type.className];
    return named?.type.modelProperties;
  }

  private check(value: unknown, mapper: Mapper, direction: Direction, where: string, problems: string[]): void {
    if (value === null || value === undefined) {
      if (value === null && mapper.nullable !== true && direction === 'request') problems.push(`${where}: null`);
      return;
    }
    const type = mapper.type.name;
    switch (type) {
      case 'String':
      case 'Uuid':
      case 'ByteArray':
      case 'Base64Url':
      case 'TimeSpan':
        if (typeof value !== 'string') problems.push(`${where}: should be a string, got ${JSON.stringify(value)}`);
        return;
      case 'DateTime':
      case 'Date':
      case 'DateTimeRfc1123':
        if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) problems.push(`${where}: should be a date-time, got ${JSON.stringify(value)}`);
        return;
      case 'Number':
      case 'UnixTime':
        if (typeof value !== 'number') problems.push(`${where}: should be a number, got ${JSON.stringify(value)}`);
        return;
      case 'Boolean':
        if (typeof value !== 'boolean') problems.push(`${where}: should be a boolean, got ${JSON.stringify(value)}`);
        return;
      case 'Enum':
        if (!(mapper.type.allowedValues ?? []).includes(value)) problems.push(`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(mapper.type.allowedValues)}`);
        return;
      case 'Sequence':
        if (!Array.isArray(value)) {
          problems.push(`${where}: should be an array`);
          return;
        }
        value.forEach((item, i) => this.check(item, mapper.type.element!, direction, `${where}[${i}]`, problems));
        return;
      case 'Dictionary':
        if (typeof value !== 'object' || Array.isArray(value)) {
          problems.push(`${where}: should be an object`);
          return;
        }
        for (const [k, v] of Object.entries(value)) this.check(v, mapper.type.value!, direction, `${where}.${k}`, problems);
        return;
      case 'Composite':
        this.checkComposite(value, mapper, direction, where, problems);
        return;
      default:
        return; // Object: anything goes
    }
  }

  private checkComposite(value: unknown, mapper: Mapper, direction: Direction, where: string, problems: string[]): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${where}: should be an object, got ${JSON.stringify(value)}`);
      return;
    }
    const properties = this.properties(mapper);
    if (!properties) return;
    const trie: Trie = { children: new Map() };
    for (const property of Object.values(properties)) {
      const path = (property.serializedName ?? '').split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
      let node = trie;
      for (const segment of path) {
        let next = node.children.get(segment);
        if (!next) {
          next = { children: new Map() };
          node.children.set(segment, next);
        }
        node = next;
      }
      node.mapper = property;
      const present = this.at(value as Record<string, unknown>, path);
      if (property.required && !(property.readOnly && direction === 'request') && present === undefined) {
        problems.push(`${where}.${path.join('.')}: required but missing`);
      }
    }
    this.walk(value as Record<string, unknown>, trie, mapper.type.additionalProperties !== undefined || this.mappers[mapper.type.className ?? '']?.type.additionalProperties !== undefined, direction, where, problems);
  }

  private at(value: Record<string, unknown>, path: string[]): unknown {
    let current: unknown = value;
    for (const segment of path) {
      if (typeof current !== 'object' || current === null) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
    return current;
  }

  private walk(value: Record<string, unknown>, trie: Trie, open: boolean, direction: Direction, where: string, problems: string[]): void {
    for (const [key, child] of Object.entries(value)) {
      const node = trie.children.get(key);
      const here = `${where}.${key}`;
      if (!node) {
        if (!open) problems.push(`${here}: not a field of the model`);
        continue;
      }
      if (node.mapper) {
        if (node.mapper.readOnly && direction === 'request') problems.push(`${here}: read-only, yet sent in a request`);
        this.check(child, node.mapper, direction, here, problems);
      } else if (typeof child === 'object' && child !== null && !Array.isArray(child)) {
        this.walk(child as Record<string, unknown>, node, false, direction, here, problems);
      } else {
        problems.push(`${here}: should be an object`);
      }
    }
  }
}
