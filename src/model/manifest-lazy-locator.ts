/**
 * @module Field positions for manifests read on the fast path, which keeps no parse tree: the
 * first time a field of any manifest of a text is located, the text is parsed with `yaml`
 * (positions kept, exactly as the manifest parser does) and the tree is kept for the next ones.
 */
import type { Document, LineCounter } from 'yaml';
import { parseYamlDocuments } from './manifest-parser.js';
import { yaml } from './yaml-library.js';
import { locateOffset, positionOf, type SourcePosition } from './yaml-positions.js';

/** Where the field at a JSON pointer is written in the `document`-th document (0-based) of the text. */
export type DocumentLocator = (document: number, pointer: string) => SourcePosition;

/** A locator for `text` (a byte-order mark already removed) that parses it on first use. */
export function lazyLocator(text: string): DocumentLocator {
  let parsed: { documents: Document[]; lineCounter: LineCounter } | undefined;
  return (document, pointer) => {
    if (parsed === undefined) {
      const lineCounter = new (yaml().LineCounter)();
      parsed = { documents: parseYamlDocuments(text, lineCounter), lineCounter };
    }
    const doc = parsed.documents[document];
    if (doc === undefined) return { line: 0, column: 0 };
    return positionOf(parsed.lineCounter, locateOffset(doc, pointer));
  };
}
