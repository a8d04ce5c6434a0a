/**
 * @module Stripe's bracket notation as the double reads it: nested hashes, indexed and appended
 * arrays, and refusals that name the parameter.
 */
import { describe, expect, it } from 'vitest';
import { metadataOf, parseStripeParams, StripeRequestError } from './stripe-wire.js';

function refusal(run: () => unknown): StripeRequestError {
  try {
    run();
  } catch (error) {
    if (error instanceof StripeRequestError) return error;
    throw error;
  }
  throw new Error('expected a StripeRequestError');
}

describe('parseStripeParams', () => {
  it('reads hashes, indexed arrays of hashes and appended arrays as the stripe SDK encodes them', () => {
    const text = 'mode=subscription&line_items[0][price]=price_a&line_items[0][quantity]=2&line_items[1][price]=price_b'
      + '&metadata[tenant]=acme&subscription_data[trial_period_days]=7&expand[]=subscription&expand[]=customer'
      + '&success_url=https%3A%2F%2Fcairn.test%2Fok%3Fa%3D1%26b%3D2';
    expect(parseStripeParams(text)).toEqual({
      mode: 'subscription',
      line_items: [{ price: 'price_a', quantity: '2' }, { price: 'price_b' }],
      metadata: { tenant: 'acme' },
      subscription_data: { trial_period_days: '7' },
      expand: ['subscription', 'customer'],
      success_url: 'https://cairn.test/ok?a=1&b=2',
    });
  });

  it('orders indexed array entries by index, not by their order in the body', () => {
    expect(parseStripeParams('expand[1]=b&expand[0]=a&expand[10]=c')).toEqual({ expand: ['a', 'b', 'c'] });
  });

  it('refuses a parameter given both as a value and as a hash, naming it', () => {
    const error = refusal(() => parseStripeParams('metadata=x&metadata[tenant]=acme'));
    expect([error.status, error.type, error.param]).toEqual([400, 'invalid_request_error', 'metadata[tenant]']);
  });

  it('refuses a key that is not bracket notation', () => {
    expect(refusal(() => parseStripeParams('metadata[tenant=acme')).param).toBe('metadata[tenant');
  });

  it('drops metadata keys set to the empty string (Stripe\'s unset) and refuses non-string values', () => {
    expect(metadataOf(parseStripeParams('metadata[a]=1&metadata[b]='))).toEqual({ a: '1' });
    expect(refusal(() => metadataOf(parseStripeParams('metadata[a][b]=1'))).param).toBe('metadata[a]');
  });
});
