/**
 * @module Reading a vendor's JSON answers without trusting them: each reader checks
 * one field's type and says which field of which answer was wrong.
 */
import { VendorUnavailableError } from '../errors.js';

export type WireObject = Record<string, unknown>;

/** Reads fields of one vendor object; `where` names it in errors (`hetzner: observe server 42: server`). */
export class WireReader {
  constructor(
    private readonly value: WireObject,
    private readonly where: string,
  ) {}

  static of(value: unknown, where: string): WireReader {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new VendorUnavailableError(`${where}: unexpected answer from the vendor: expected an object, got ${JSON.stringify(value)?.slice(0, 100)}`);
    }
    return new WireReader(value as WireObject, where);
  }

  private wrong(key: string, expected: string): VendorUnavailableError {
    const got = JSON.stringify(this.value[key])?.slice(0, 100) ?? 'nothing';
    return new VendorUnavailableError(`${this.where}: unexpected answer from the vendor: "${key}" should be ${expected}, got ${got}`);
  }

  /** The field as sent, unchecked (for presence and null tests before a typed read). */
  raw(key: string): unknown {
    return this.value[key];
  }

  object(key: string): WireReader {
    return WireReader.of(this.value[key], `${this.where}.${key}`);
  }

  array(key: string): WireReader[] {
    const value = this.value[key];
    if (!Array.isArray(value)) throw this.wrong(key, 'an array');
    return value.map((item, index) => WireReader.of(item, `${this.where}.${key}[${index}]`));
  }

  string(key: string): string {
    const value = this.value[key];
    if (typeof value !== 'string') throw this.wrong(key, 'a string');
    return value;
  }

  stringOrNull(key: string): string | null {
    const value = this.value[key];
    if (value === null || value === undefined) return null;
    if (typeof value !== 'string') throw this.wrong(key, 'a string or null');
    return value;
  }

  number(key: string): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.wrong(key, 'a number');
    return value;
  }

  numberOrNull(key: string): number | null {
    const value = this.value[key];
    if (value === null || value === undefined) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.wrong(key, 'a number or null');
    return value;
  }

  boolean(key: string): boolean {
    const value = this.value[key];
    if (typeof value !== 'boolean') throw this.wrong(key, 'a boolean');
    return value;
  }

  strings(key: string): string[] {
    const value = this.value[key];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw this.wrong(key, 'an array of strings');
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T {
    const value = this.value[key];
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw this.wrong(key, `one of ${allowed.join(', ')}`);
    return value as T;
  }
}
