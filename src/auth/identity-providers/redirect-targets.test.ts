/** @module Tests of where a sign-in may send the browser: paths, cairn's own origin, cairn login's loopback listener; nothing else. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { checkedRedirectTarget, withCode } from './redirect-targets.js';

const PUBLIC = new URL('https://cairn.example.com');

describe('sign-in redirect targets', () => {
  it.each([
    ['/dashboard?tab=1', '/dashboard?tab=1'],
    ['https://cairn.example.com/after', 'https://cairn.example.com/after'],
    ['http://127.0.0.1:4321/cairn-login', 'http://127.0.0.1:4321/cairn-login'],
    ['http://[::1]:4321/cairn-login', 'http://[::1]:4321/cairn-login'],
  ])('allows %s', (target, checked) => {
    expect(checkedRedirectTarget(target, PUBLIC)).toBe(checked);
  });

  it.each([
    'https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)', 'evil.example', 'https://cairn.example.com.evil.example/',
    'http://cairn.example.com/', 'http://127.0.0.1/cairn-login', 'http://127.0.0.1:4321/elsewhere', 'http://localhost:4321/cairn-login',
    'https://127.0.0.1:4321/cairn-login', 'http://u:p@127.0.0.1:4321/cairn-login', '/ok\nLocation: https://evil.example',
  ])('refuses %s (422 on redirect_uri)', (target) => {
    expect(() => checkedRedirectTarget(target, PUBLIC)).toThrow(ValidationError);
    try {
      checkedRedirectTarget(target, PUBLIC);
    } catch (error) {
      expect((error as ValidationError).issues[0]?.pointer).toBe('/redirect_uri');
    }
  });

  it('adds the one-time code to the target, keeping its query', () => {
    expect(withCode('/after?tab=1', PUBLIC, 'c1')).toBe('/after?tab=1&code=c1');
    expect(withCode('http://127.0.0.1:4321/cairn-login', PUBLIC, 'c1')).toBe('http://127.0.0.1:4321/cairn-login?code=c1');
  });
});
