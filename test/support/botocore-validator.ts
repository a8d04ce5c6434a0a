/**
 * @module A generic validator of AWS's Query-style wire format against a service's botocore
 * model (`service-2.json`), for the AWS doubles: a request's form parameters are parsed into the
 * operation's input shape (ec2 protocol: `TagSpecification.1.Tag.1.Key`; query protocol:
 * `Tags.Tag.1.Key` / `Names.member.1`), every type, enum, length and `required` checked and any
 * parameter the shape has no place for reported; an answer is checked against the operation's
 * output shape and serialized to XML FROM the model (element names, list wrappers, result
 * wrapper), so what the SDK parses is right by construction. Errors in EC2's `<Response><Errors>`
 * and the query protocol's `<ErrorResponse>` shapes. Any service of either protocol reuses it.
 */
import { readFileSync } from 'node:fs';

interface MemberRef {
  shape: string;
  locationName?: string;
  queryName?: string;
  flattened?: boolean;
}

interface Shape {
  type: 'structure' | 'list' | 'map' | 'string' | 'integer' | 'long' | 'boolean' | 'timestamp' | 'blob' | 'double' | 'float';
  members?: Record<string, MemberRef>;
  required?: string[];
  member?: MemberRef;
  flattened?: boolean;
  enum?: string[];
  min?: number;
  max?: number;
}

interface Model {
  metadata: { protocol: string; xmlNamespace: string; apiVersion: string };
  operations: Record<string, { input?: { shape: string }; output?: { shape: string; resultWrapper?: string } }>;
  shapes: Record<string, Shape>;
}

export type Wire = Record<string, unknown>;

function capitalize(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export class BotocoreService {
  private readonly model: Model;
  readonly protocol: 'ec2' | 'query';

  constructor(file: string) {
    this.model = JSON.parse(readFileSync(file, 'utf8')) as Model;
    const protocol = this.model.metadata.protocol;
    if (protocol !== 'ec2' && protocol !== 'query') throw new Error(`${file}: protocol ${protocol} is not a Query protocol`);
    this.protocol = protocol;
  }

  get apiVersion(): string {
    return this.model.metadata.apiVersion;
  }

  hasOperation(action: string): boolean {
    return this.model.operations[action] !== undefined;
  }

  private shape(name: string): Shape {
    const shape = this.model.shapes[name];
    if (!shape) throw new Error(`botocore model has no shape ${name}`);
    return shape;
  }

  /** The parameter name of a member: ec2 takes queryName, else the capitalized locationName; query takes locationName. */
  private paramName(name: string, member: MemberRef): string {
    if (this.protocol === 'ec2') return member.queryName ?? (member.locationName ? capitalize(member.locationName) : name);
    return member.locationName ?? name;
  }

  /** The request's parameters as the operation's input, with every problem found (`Action`/`Version` aside). */
  parseRequest(action: string, params: URLSearchParams): { input: Wire; problems: string[] } {
    const operation = this.model.operations[action];
    if (!operation) return { input: {}, problems: [`${action}: not an operation of this service`] };
    const problems: string[] = [];
    if (params.get('Version') !== this.apiVersion) problems.push(`${action}: Version is ${params.get('Version')}, not ${this.apiVersion}`);
    const flat = new Map<string, string>();
    for (const [key, value] of params) if (key !== 'Action' && key !== 'Version') flat.set(key, value);
    const used = new Set<string>();
    const input = operation.input ? (this.readStructure(operation.input.shape, '', flat, used, problems, action) ?? {}) : {};
    for (const key of flat.keys()) if (!used.has(key)) problems.push(`${action}: parameter ${key} is not in ${operation.input?.shape ?? 'the input'}`);
    return { input, problems };
  }

  private readStructure(shapeName: string, prefix: string, flat: Map<string, string>, used: Set<string>, problems: string[], at: string): Wire | undefined {
    const shape = this.shape(shapeName);
    const out: Wire = {};
    for (const [name, member] of Object.entries(shape.members ?? {})) {
      const value = this.readValue(member, `${prefix}${this.paramName(name, member)}`, flat, used, problems, `${at}.${name}`);
      if (value !== undefined) out[name] = value;
    }
    for (const name of shape.required ?? []) if (out[name] === undefined) problems.push(`${at}: ${name} is required (${shapeName})`);
    return Object.keys(out).length === 0 && prefix !== '' ? undefined : out;
  }

  private readValue(member: MemberRef, key: string, flat: Map<string, string>, used: Set<string>, problems: string[], at: string): unknown {
    const shape = this.shape(member.shape);
    if (shape.type === 'structure') {
      const hasAny = [...flat.keys()].some((k) => k.startsWith(`${key}.`));
      return hasAny ? this.readStructure(member.shape, `${key}.`, flat, used, problems, at) : undefined;
    }
    if (shape.type === 'list') {
      const item = shape.member!;
      const base = this.protocol === 'ec2' || shape.flattened || member.flattened ? key : `${key}.${item.locationName ?? 'member'}`;
      const items: unknown[] = [];
      for (let i = 1; ; i++) {
        const itemKey = `${base}.${i}`;
        const present = flat.has(itemKey) || [...flat.keys()].some((k) => k.startsWith(`${itemKey}.`));
        if (!present) break;
        items.push(this.readValue(item, itemKey, flat, used, problems, `${at}[${i}]`));
      }
      if (this.protocol === 'query' && flat.get(key) === '') used.add(key);
      if (items.length === 0) return undefined;
      this.checkLength(shape, items.length, problems, at);
      return items;
    }
    if (shape.type === 'map') {
      if ([...flat.keys()].some((k) => k.startsWith(`${key}.`))) problems.push(`${at}: maps are not read by this validator`);
      return undefined;
    }
    const text = flat.get(key);
    if (text === undefined) return undefined;
    used.add(key);
    return this.readScalar(shape, text, problems, at);
  }

  private readScalar(shape: Shape, text: string, problems: string[], at: string): unknown {
    switch (shape.type) {
      case 'integer':
      case 'long':
        if (!/^-?\d+$/.test(text)) problems.push(`${at}: "${text}" is not an integer`);
        else this.checkRange(shape, Number(text), problems, at);
        return Number(text);
      case 'double':
      case 'float':
        if (!Number.isFinite(Number(text))) problems.push(`${at}: "${text}" is not a number`);
        return Number(text);
      case 'boolean':
        if (text !== 'true' && text !== 'false') problems.push(`${at}: "${text}" is not true or false`);
        return text === 'true';
      case 'timestamp':
        if (Number.isNaN(Date.parse(text))) problems.push(`${at}: "${text}" is not a timestamp`);
        return text;
      case 'blob':
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) problems.push(`${at}: not base64`);
        return text;
      default:
        if (shape.enum && !shape.enum.includes(text)) problems.push(`${at}: "${text}" is not one of ${shape.enum.slice(0, 12).join(', ')}${shape.enum.length > 12 ? ', …' : ''}`);
        this.checkLength(shape, text.length, problems, at);
        return text;
    }
  }

  private checkLength(shape: Shape, length: number, problems: string[], at: string): void {
    if (shape.min !== undefined && length < shape.min) problems.push(`${at}: length ${length} is below its minimum ${shape.min}`);
    if (shape.max !== undefined && length > shape.max) problems.push(`${at}: length ${length} is above its maximum ${shape.max}`);
  }

  private checkRange(shape: Shape, value: number, problems: string[], at: string): void {
    if (shape.min !== undefined && value < shape.min) problems.push(`${at}: ${value} is below its minimum ${shape.min}`);
    if (shape.max !== undefined && value > shape.max) problems.push(`${at}: ${value} is above its maximum ${shape.max}`);
  }

  /** The operation's answer as XML, built from its output shape; every value not fitting the shape is a problem. */
  serializeAnswer(action: string, output: Wire, requestId: string): { xml: string; problems: string[] } {
    const operation = this.model.operations[action];
    if (!operation) return { xml: '', problems: [`${action}: not an operation of this service`] };
    const problems: string[] = [];
    const body = operation.output ? this.writeStructure(operation.output.shape, output, problems, `${action} answer`) : '';
    const ns = `${this.model.metadata.xmlNamespace.replace(/\/$/, '')}/`;
    if (this.protocol === 'ec2') {
      return { xml: `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${ns}"><requestId>${requestId}</requestId>${body}</${action}Response>`, problems };
    }
    const wrapper = operation.output?.resultWrapper;
    const result = wrapper ? `<${wrapper}>${body}</${wrapper}>` : body;
    return { xml: `<${action}Response xmlns="${ns}">${result}<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`, problems };
  }

  private writeStructure(shapeName: string, value: unknown, problems: string[], at: string): string {
    const shape = this.shape(shapeName);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${at}: expected a ${shapeName} object`);
      return '';
    }
    const members = shape.members ?? {};
    let xml = '';
    for (const [name, item] of Object.entries(value as Wire)) {
      const member = members[name];
      if (!member) {
        problems.push(`${at}: ${name} is not a member of ${shapeName}`);
        continue;
      }
      if (item === undefined || item === null) continue;
      xml += this.writeMember(member.locationName ?? name, member, item, problems, `${at}.${name}`);
    }
    return xml;
  }

  private writeMember(element: string, member: MemberRef, value: unknown, problems: string[], at: string): string {
    const shape = this.shape(member.shape);
    if (shape.type === 'structure') return `<${element}>${this.writeStructure(member.shape, value, problems, at)}</${element}>`;
    if (shape.type === 'list') {
      if (!Array.isArray(value)) {
        problems.push(`${at}: expected a list (${member.shape})`);
        return '';
      }
      this.checkLength(shape, value.length, problems, at);
      const item = shape.member!;
      if (shape.flattened || member.flattened) return value.map((v, i) => this.writeMember(element, item, v, problems, `${at}[${i}]`)).join('');
      const inner = value.map((v, i) => this.writeMember(item.locationName ?? 'member', item, v, problems, `${at}[${i}]`)).join('');
      return `<${element}>${inner}</${element}>`;
    }
    if (shape.type === 'map') {
      problems.push(`${at}: maps are not written by this validator`);
      return '';
    }
    return `<${element}>${escapeXml(this.writeScalar(shape, member.shape, value, problems, at))}</${element}>`;
  }

  private writeScalar(shape: Shape, name: string, value: unknown, problems: string[], at: string): string {
    switch (shape.type) {
      case 'integer':
      case 'long':
        if (typeof value !== 'number' || !Number.isInteger(value)) problems.push(`${at}: ${JSON.stringify(value)} is not an integer (${name})`);
        return String(value);
      case 'double':
      case 'float':
        if (typeof value !== 'number') problems.push(`${at}: ${JSON.stringify(value)} is not a number (${name})`);
        return String(value);
      case 'boolean':
        if (typeof value !== 'boolean') problems.push(`${at}: ${JSON.stringify(value)} is not a boolean (${name})`);
        return String(value);
      case 'timestamp':
        if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) problems.push(`${at}: ${JSON.stringify(value)} is not an ISO timestamp (${name})`);
        return String(value);
      default:
        if (typeof value !== 'string') {
          problems.push(`${at}: ${JSON.stringify(value)} is not a string (${name})`);
          return String(value);
        }
        if (shape.enum && !shape.enum.includes(value)) problems.push(`${at}: "${value}" is not one of ${name}'s values`);
        return value;
    }
  }

  /** An error answer in the protocol's shape. */
  errorXml(code: string, message: string, requestId: string): string {
    if (this.protocol === 'ec2') {
      return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
    }
    const ns = `${this.model.metadata.xmlNamespace.replace(/\/$/, '')}/`;
    return `<ErrorResponse xmlns="${ns}"><Error><Type>Sender</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
  }
}
