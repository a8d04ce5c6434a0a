/**
 * @module Reading a sandbox request body: each reader checks one field and throws a 422 that
 * names it, as a vendor's API does.
 */
import type { Request } from 'express';
import { unprocessable } from './api-error.js';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request body as an object; a missing or non-object body is a 422. */
export function jsonBody(req: Request): JsonObject {
  const body: unknown = req.body;
  if (!isJsonObject(body)) {
    throw unprocessable('body', 'request body must be a JSON object (send Content-Type: application/json)');
  }
  return body;
}

export function requiredString(body: JsonObject, field: string, maxLength = 255): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw unprocessable(field, `${field} is required and must be a non-empty string`);
  if (value.length > maxLength) throw unprocessable(field, `${field} must be at most ${maxLength} characters`);
  return value;
}

/** A string, null, or absent (undefined). */
export function optionalString(body: JsonObject, field: string, maxLength = 4096): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw unprocessable(field, `${field} must be a string or null`);
  if (value.length > maxLength) throw unprocessable(field, `${field} must be at most ${maxLength} characters`);
  return value;
}

/** An integer in [min, max], null, or absent (undefined). */
export function optionalInteger(body: JsonObject, field: string, min: number, max: number): number | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw unprocessable(field, `${field} must be an integer from ${min} to ${max} or null`);
  }
  return value;
}

/** One of `allowed`, or absent (undefined). */
export function optionalChoice<T extends string>(body: JsonObject, field: string, allowed: readonly T[]): T | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw unprocessable(field, `${field} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

export function requiredChoice<T extends string>(body: JsonObject, field: string, allowed: readonly T[]): T {
  const value = optionalChoice(body, field, allowed);
  if (value === undefined) throw unprocessable(field, `${field} is required: one of ${allowed.join(', ')}`);
  return value;
}

/** An object whose values are all strings, or absent (undefined). */
export function optionalStringMap(body: JsonObject, field: string): Record<string, string> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    throw unprocessable(field, `${field} must be an object of string values`);
  }
  return value as Record<string, string>;
}

/** The `?client_token=` filter of a list request, if any; given twice it is a 422, never "no filter". */
export function clientTokenFilter(req: Request): string | undefined {
  const value: unknown = req.query['client_token'];
  if (value === undefined || typeof value === 'string') return value;
  throw unprocessable('client_token', 'client_token must be given at most once, as a plain string');
}

/** A route parameter express always provides for the routes that declare it. */
export function pathId(req: Request): string {
  const id: unknown = req.params['id'];
  if (typeof id !== 'string') throw new Error('sandbox cloud: route has no :id parameter');
  return id;
}
