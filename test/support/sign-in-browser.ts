/**
 * @module A small browser for sign-in tests: follows redirects by hand with a cookie jar, and
 * fills in oidc-provider's login and consent pages, until the provider sends it back to the
 * URL given (cairn's callback), which it returns without following.
 */
export class SignInBrowser {
  private readonly cookies = new Map<string, string>();

  /** Follows `start` until a redirect to a URL starting with `stopAt`; fills forms on the way as `login`. */
  async runUntil(start: string, stopAt: string, login: string): Promise<URL> {
    let url = start;
    let method = 'GET';
    let body: string | undefined;
    for (let step = 0; step < 20; step++) {
      if (url.startsWith(stopAt)) return new URL(url);
      const response = await fetch(url, {
        method, redirect: 'manual',
        headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body !== undefined ? { body } : {}),
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const at = pair!.indexOf('=');
        this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url).href;
        method = 'GET';
        body = undefined;
        continue;
      }
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (response.status !== 200 || !action || !prompt) throw new Error(`${method} ${url} answered ${response.status} without a form: ${html.slice(0, 500)}`);
      url = new URL(action.replace(/&amp;/g, '&'), url).href;
      method = 'POST';
      body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }).toString();
    }
    throw new Error(`no redirect to ${stopAt} after 20 steps`);
  }
}
