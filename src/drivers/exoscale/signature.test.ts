import { describe, expect, it } from 'vitest';
import { exoscaleAuthorization } from './signature.js';

// Known vectors: egoscale's own signer test (v2/api/security_test.go), themselves checked against
// Exoscale's Python reference implementation (requests-exoscale-auth).
const KEY = 'EXOxxxxxxxxxxxxxxxxxxxxxxxx';
const SECRET = 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
const EXPIRES = Date.UTC(2077, 0, 1) / 1000;

describe('exoscale request signature', () => {
  it('signs a request without query parameters as Exoscale does', () => {
    const header = exoscaleAuthorization(KEY, SECRET, { method: 'GET', url: new URL('https://api.exoscale.com/v2/zone'), body: undefined }, EXPIRES);
    expect(header).toBe(`EXO2-HMAC-SHA256 credential=${KEY},expires=${EXPIRES},signature=Ntbq/p0HVmA3Zg1HHY+Lq1vjFGi7HeMrrgXDS5jRNlY=`);
  });

  it('names the signed query parameters, sorted, and signs their values', () => {
    const header = exoscaleAuthorization(KEY, SECRET, { method: 'GET', url: new URL('https://api.exoscale.com/v2/zone?k2=v2&k1=v1'), body: undefined }, EXPIRES);
    expect(header).toBe(`EXO2-HMAC-SHA256 credential=${KEY},signed-query-args=k1;k2,expires=${EXPIRES},signature=iqOBz13+44L5j0uJclE8hmUhQQcvtCSoPEOXYK6liqY=`);
  });

  it('signs the body, so another body gets another signature', () => {
    const url = new URL('https://api.exoscale.com/v2/security-group');
    const one = exoscaleAuthorization(KEY, SECRET, { method: 'POST', url, body: '{"name":"a"}' }, EXPIRES);
    const two = exoscaleAuthorization(KEY, SECRET, { method: 'POST', url, body: '{"name":"b"}' }, EXPIRES);
    expect(one).not.toBe(two);
  });
});
