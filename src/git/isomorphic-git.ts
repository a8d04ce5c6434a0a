/**
 * @module isomorphic-git, loaded on first use: it costs about 0.1 s to import, which commands
 * that never touch git (plan, validate, get) should not pay at start-up.
 */
export type Git = (typeof import('isomorphic-git'))['default'];
type Http = (typeof import('isomorphic-git/http/node'))['default'];

let loaded: Promise<{ git: Git; http: Http }> | undefined;

/** isomorphic-git and its node HTTP client. */
export function loadGit(): Promise<{ git: Git; http: Http }> {
  if (!loaded) {
    loaded = Promise.all([import('isomorphic-git'), import('isomorphic-git/http/node')]).then(([git, http]) => ({ git: git.default, http: http.default }));
  }
  return loaded;
}
