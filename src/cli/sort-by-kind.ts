/**
 * @module Orders resources the way they are created (Provider → SSHKey → Server → Database → App), or
 * the way they are deleted (the reverse), so progress reads top to bottom.
 */
import { kindRank, type Kind } from '../model/kinds.js';

export function sortByKind<T extends { kind: Kind }>(items: readonly T[], reverse = false): T[] {
  const sign = reverse ? -1 : 1;
  return [...items].sort((a, b) => sign * (kindRank(a.kind) - kindRank(b.kind)));
}
