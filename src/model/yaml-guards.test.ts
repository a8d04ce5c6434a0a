/**
 * @module The cheap checks before parsing: how aliases are counted per document in the raw text,
 * and how far a number of aliases can multiply, as yaml's `maxAliasCount` counts it.
 */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { aliasExpansionBound, scanYamlText } from './yaml-guards.js';

describe('scanYamlText', () => {
  it('counts aliases per document, wherever a node can start, but not stars inside words, quotes or comments', () => {
    const text = [
      'a: &x [1]',
      'b: *x',
      'c: [*x, *x]',
      '- *x',
      'schedule: 0 3 * * *',
      'quoted: "*x"',
      '# *x',
      '---',
      'd: {e: *x}',
    ].join('\n');
    expect(scanYamlText(text).maxAliasesPerDocument).toBe(4);
    expect(scanYamlText('a: 1\n---\nb: *x\n---\nc: [*x,*x]\n').maxAliasesPerDocument).toBe(2);
  });
});

describe('aliasExpansionBound', () => {
  /** The smallest `maxAliasCount` with which yaml reads `text` without refusing its aliases. */
  function smallestLimitFor(text: string): number {
    const [doc] = parseAllDocuments(text);
    for (let limit = 1; ; limit++) {
      try {
        doc?.toJS({ maxAliasCount: limit });
        return limit;
      } catch {
        // refused: try a larger limit
      }
    }
  }

  /** A chain of `length` anchors, each used `uses` times inside the next. */
  function chain(length: number, uses: number): string {
    const lines = ['a0: &a0 [x]'];
    for (let i = 1; i <= length; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: uses }, () => `*a${i - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\n`;
  }

  it('bounds what yaml counts, however the aliases are arranged', () => {
    for (const [length, uses] of [[1, 12], [2, 3], [3, 3], [6, 1], [7, 1], [4, 2]] as const) {
      expect(smallestLimitFor(chain(length, uses)), `${length} anchors used ${uses} times each`).toBeLessThanOrEqual(aliasExpansionBound(length * uses));
    }
  });

  it('is tight for a chain of anchors used once each', () => {
    expect(smallestLimitFor(chain(6, 1))).toBe(aliasExpansionBound(6));
    expect(aliasExpansionBound(6)).toBeLessThanOrEqual(100);
    expect(aliasExpansionBound(7)).toBeGreaterThan(100);
    expect(aliasExpansionBound(0)).toBe(0);
  });
});
