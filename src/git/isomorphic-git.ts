/**
 * @module isomorphic-git, loaded on first use: it costs about 0.1 s to import, which commands
 * that never touch git (plan, validate, get) should not pay at start-up. Its HTTP client is the
 * outbound guard's: git remotes are URLs a tenant gave.
 */
import type { HttpClient } from 'isomorphic-git';

export type Git = (typeof import('isomorphic-git'))['default'];

let loaded: Promise<{ git: Git; http: HttpClient }> | undefined;

/** isomorphic-git and the guarded HTTP client it fetches with. */
export function loadGit(): Promise<{ git: Git; http: HttpClient }> {
  if (!loaded) {
    loaded = Promise.all([import('isomorphic-git'), import('../net/guarded-git-http.js')]).then(([git, http]) => ({ git: git.default, http: http.guardedGitHttp }));
  }
  return loaded;
}
