/**
 * @module If-Match as RFC 9110 §13.1.1 reads it: a well-formed entity-tag list that names no
 * current version is 412, only a header that is not an entity-tag list at all is 400.
 */
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { MalformedRequestError, PreconditionFailedError } from '../model/errors.js';
import { expectedVersion } from './versioning.js';

const withIfMatch = (header: string | undefined): Request => ({ get: (name: string) => (name.toLowerCase() === 'if-match' ? header : undefined) }) as unknown as Request;
const current = { specVersion: 7 };

describe('expectedVersion', () => {
  it('asks for nothing without the header or with *', () => {
    expect(expectedVersion(withIfMatch(undefined), current)).toBeUndefined();
    expect(expectedVersion(withIfMatch(' * '), current)).toBeUndefined();
  });

  it('takes the current version, strong or weak, alone or in a list', () => {
    expect(expectedVersion(withIfMatch('"7"'), current)).toBe(7);
    expect(expectedVersion(withIfMatch('W/"7"'), current)).toBe(7);
    expect(expectedVersion(withIfMatch('"3", "x,y", W/"7"'), current)).toBe(7);
  });

  it('answers 412 for well-formed tags cairn never issued or that are stale', () => {
    for (const header of ['"x"', 'W/"x"', '""', '"3"', '"abc", "4"', '"a","b"']) {
      expect(() => expectedVersion(withIfMatch(header), current), header).toThrow(PreconditionFailedError);
    }
  });

  it('answers 400 only for a header that is not an entity-tag list', () => {
    for (const header of ['7', 'x', '"7', '"7" "8"', '*, "7"', 'W/7', '"a"b"', '']) {
      expect(() => expectedVersion(withIfMatch(header), current), header).toThrow(MalformedRequestError);
    }
  });
});
