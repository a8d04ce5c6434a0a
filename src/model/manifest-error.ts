/**
 * @module The error a user sees for a manifest: where it is (file, line, column, document), which
 * resource and field it is about, and what is wrong, formatted as one line in the style of
 * compilers: `db.yaml:14:5 Database/shop spec.storageGb: must be >= 1`.
 */
import { pointerToFieldPath } from './json-pointer.js';
import { DEFAULT_NAMESPACE } from './resource.js';

export interface ManifestError {
  /** The file as the user named it (relative paths stay relative); `-` is stdin. */
  file: string;
  /** 1-based line; 0 when the error is about the whole file and has no position (e.g. it does not exist). */
  line: number;
  /** 1-based column; 0 together with line 0. */
  column: number;
  /** 0-based index of the document within the file; -1 when the error is about the whole file. */
  document: number;
  /** JSON pointer of the field the error is about; `''` for the whole document. */
  pointer: string;
  /** The resource's kind and name, when the document names them validly enough to tell. */
  kind?: string;
  name?: string;
  /** The resource's namespace when it is not `default`. */
  namespace?: string;
  message: string;
}

/** How the error names the thing it is about: `Server/web-1`, `Server/staging/web-1`, `document 2`. */
function subjectOf(error: ManifestError): string {
  if (error.kind !== undefined && error.name !== undefined) {
    const namespace = error.namespace ?? DEFAULT_NAMESPACE;
    return namespace === DEFAULT_NAMESPACE ? `${error.kind}/${error.name}` : `${error.kind}/${namespace}/${error.name}`;
  }
  if (error.document < 0) return '';
  return error.kind !== undefined ? `document ${error.document + 1} (${error.kind})` : `document ${error.document + 1}`;
}

/**
 * One line: `file:line:column subject field.path: message`. Documents are counted from 1 for
 * people (`document 2` is the second); parts that are unknown are left out.
 */
export function formatManifestError(error: ManifestError): string {
  const file = error.file === '-' ? '<stdin>' : error.file;
  const location = error.line > 0 ? `${file}:${error.line}:${error.column}` : file;
  const about = [subjectOf(error), pointerToFieldPath(error.pointer)].filter((part) => part !== '').join(' ');
  return about === '' ? `${location}: ${error.message}` : `${location} ${about}: ${error.message}`;
}

/** Orders errors of one file by position, so output follows the file from top to bottom (use a stable sort). */
export function compareErrorPositions(a: ManifestError, b: ManifestError): number {
  return a.document - b.document || a.line - b.line || a.column - b.column;
}

/** An error about a file as a whole, with no position: it is missing, too large, unreadable. */
export function wholeFileError(file: string, message: string): ManifestError {
  return { file, line: 0, column: 0, document: -1, pointer: '', message };
}
