/**
 * @module How much YAML cairn reads before refusing: bounds on file size, documents, alias
 * expansion, nesting and reported errors, so hostile input is refused quickly and never expanded.
 */

export interface ManifestLimits {
  /** Bytes (UTF-8) per file or posted text. */
  maxFileBytes: number;
  /** YAML documents per file. */
  maxDocumentsPerFile: number;
  /** Alias expansions per document (yaml's `maxAliasCount`); a "billion laughs" bomb needs far more. */
  maxAliasCount: number;
  /** Nesting of flow collections (`[`, `{`); real manifests use a handful of levels. */
  maxNestingDepth: number;
  /** Errors reported per file; the rest are summed up in one line. */
  maxErrorsPerFile: number;
}

export const DEFAULT_MANIFEST_LIMITS: Readonly<ManifestLimits> = Object.freeze({
  maxFileBytes: 4 * 1024 * 1024,
  maxDocumentsPerFile: 10_000,
  maxAliasCount: 100,
  maxNestingDepth: 100,
  maxErrorsPerFile: 100,
});

/** A byte count for messages: `5.0 MiB`, `12 KiB`, `300 bytes`. */
export function formatByteSize(bytes: number): string {
  if (bytes >= 1024 * 1024) {
    const mib = bytes / (1024 * 1024);
    return Number.isInteger(mib) ? `${mib} MiB` : `${mib.toFixed(1)} MiB`;
  }
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
