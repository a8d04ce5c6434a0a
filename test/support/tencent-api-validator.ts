/**
 * @module A validator for Tencent Cloud API 3.0 documents (the `api.json` of each service and
 * version, as tencentcloud-sdk's generator reads them): an action's request is checked against
 * its input object, its answer against its output object, member by member: each member's
 * type (`string`, `int` — `uint64` not negative —, `float`, `bool`, `list` of a member,
 * `object` of a named object), the request's `required` members, the answer's
 * `output_required` ones (an object used only in answers marks them `required`), null only
 * where `value_allowed_null` says, and no member the document does not name. Any service's
 * double reuses it: `new TencentApiValidator(file)`.
 */
import { readFileSync } from 'node:fs';

interface Member {
  name: string;
  type: 'string' | 'int' | 'float' | 'bool' | 'list' | 'object';
  member: string;
  required?: boolean;
  output_required?: boolean;
  value_allowed_null?: boolean;
}

interface ApiObject {
  members: Member[];
  usage?: 'in' | 'out' | 'both';
}

interface ApiDocument {
  actions: Record<string, { input: string; output: string }>;
  metadata: { apiVersion: string; serviceShortName: string };
  objects: Record<string, ApiObject>;
}

const PRIMITIVES = new Set(['string', 'int64', 'uint64', 'float', 'bool', 'datetime', 'datetime_iso', 'double', 'binary']);

export class TencentApiValidator {
  private readonly document: ApiDocument;

  constructor(file: string) {
    this.document = JSON.parse(readFileSync(file, 'utf8')) as ApiDocument;
  }

  get version(): string {
    return this.document.metadata.apiVersion;
  }

  get service(): string {
    return this.document.metadata.serviceShortName;
  }

  hasAction(action: string): boolean {
    return this.document.actions[action] !== undefined;
  }

  /** What is wrong with a request's parameters for `action` (none: []). */
  request(action: string, params: unknown): string[] {
    const found = this.document.actions[action];
    if (!found) return [`${action}: not an action of ${this.service} ${this.version}`];
    return this.object(found.input, params, `${action} request`, 'in');
  }

  /** What is wrong with an answer's `Response` for `action` (none: []); an error answer is checked as Tencent's error shape. */
  response(action: string, response: unknown): string[] {
    const found = this.document.actions[action];
    if (!found) return [`${action}: not an action of ${this.service} ${this.version}`];
    const body = response as { Error?: unknown } | null;
    if (body && typeof body === 'object' && 'Error' in body) return errorShape(response, `${action} error answer`);
    return this.object(found.output, response, `${action} answer`, 'out');
  }

  private object(name: string, value: unknown, at: string, direction: 'in' | 'out'): string[] {
    const definition = this.document.objects[name];
    if (!definition) return [`${at}: the document has no object ${name}`];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: should be an object (${name}), got ${JSON.stringify(value)?.slice(0, 80)}`];
    const problems: string[] = [];
    const record = value as Record<string, unknown>;
    const names = new Set(definition.members.map((m) => m.name));
    for (const key of Object.keys(record)) if (!names.has(key)) problems.push(`${at}.${key}: not a member of ${name}`);
    for (const member of definition.members) {
      const present = record[member.name];
      const required = direction === 'in' ? member.required === true : member.output_required ?? (definition.usage === 'out' && member.required === true);
      if (present === undefined) {
        if (required) problems.push(`${at}.${member.name}: required by ${name}, missing`);
        continue;
      }
      if (present === null) {
        if (direction === 'in' || !member.value_allowed_null) problems.push(`${at}.${member.name}: null, which ${name} does not allow`);
        continue;
      }
      problems.push(...this.member(member, present, `${at}.${member.name}`, direction));
    }
    return problems;
  }

  private member(member: Member, value: unknown, at: string, direction: 'in' | 'out'): string[] {
    if (member.type === 'list') {
      if (!Array.isArray(value)) return [`${at}: should be a list of ${member.member}, got ${JSON.stringify(value)?.slice(0, 80)}`];
      return value.flatMap((item, i) => this.single(member.member, item, `${at}[${i}]`, direction));
    }
    if (member.type === 'object') return this.object(member.member, value, at, direction);
    return this.single(member.member, value, at, direction);
  }

  private single(type: string, value: unknown, at: string, direction: 'in' | 'out'): string[] {
    if (!PRIMITIVES.has(type)) return this.object(type, value, at, direction);
    const wrong = (what: string): string[] => [`${at}: should be ${what} (${type}), got ${JSON.stringify(value)?.slice(0, 80)}`];
    switch (type) {
      case 'int64':
        return Number.isInteger(value) ? [] : wrong('an integer');
      case 'uint64':
        return Number.isInteger(value) && (value as number) >= 0 ? [] : wrong('a non-negative integer');
      case 'float':
      case 'double':
        return typeof value === 'number' && Number.isFinite(value) ? [] : wrong('a number');
      case 'bool':
        return typeof value === 'boolean' ? [] : wrong('a boolean');
      case 'datetime_iso':
        return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? [] : wrong('an ISO 8601 time');
      default:
        return typeof value === 'string' ? [] : wrong('a string');
    }
  }
}

/** Tencent's error answer: `{ Error: { Code, Message }, RequestId }` and nothing else. */
function errorShape(response: unknown, at: string): string[] {
  const body = response as { Error?: { Code?: unknown; Message?: unknown }; RequestId?: unknown };
  const problems: string[] = [];
  if (typeof body.Error?.Code !== 'string' || body.Error.Code === '') problems.push(`${at}: Error.Code should be a string`);
  if (typeof body.Error?.Message !== 'string') problems.push(`${at}: Error.Message should be a string`);
  if (typeof body.RequestId !== 'string') problems.push(`${at}: RequestId should be a string`);
  for (const key of Object.keys(body)) if (key !== 'Error' && key !== 'RequestId') problems.push(`${at}.${key}: not in Tencent's error answer`);
  return problems;
}
