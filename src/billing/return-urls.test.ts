/** @module Tests of the return-URL check: cairn's public origin only (localhost without one), 422 naming each bad field. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { checkReturnUrls } from './return-urls.js';

describe('checkReturnUrls', () => {
  it('takes URLs on CAIRN_PUBLIC_URL\'s origin and refuses others, naming each field', () => {
    const publicUrl = new URL('https://cairn.example.com/app');
    expect(() => checkReturnUrls({ success_url: 'https://cairn.example.com/billing/done' }, publicUrl)).not.toThrow();
    let error: unknown;
    try {
      checkReturnUrls({ success_url: 'https://cairn.example.com.evil.test/x', cancel_url: 'http://cairn.example.com/x' }, publicUrl);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.pointer)).toEqual(['/success_url', '/cancel_url']);
  });

  it('takes only localhost while CAIRN_PUBLIC_URL is unset, and refuses what is not a URL', () => {
    expect(() => checkReturnUrls({ return_url: 'http://127.0.0.1:8080/billing' }, undefined)).not.toThrow();
    expect(() => checkReturnUrls({ return_url: 'http://localhost/billing' }, undefined)).not.toThrow();
    expect(() => checkReturnUrls({ return_url: 'https://evil.test/' }, undefined)).toThrow('return_url must be on localhost while CAIRN_PUBLIC_URL is unset');
    expect(() => checkReturnUrls({ return_url: 'javascript:alert(1)' }, undefined)).toThrow(ValidationError);
    expect(() => checkReturnUrls({ return_url: '/relative' }, undefined)).toThrow('must be an absolute URL');
  });
});
