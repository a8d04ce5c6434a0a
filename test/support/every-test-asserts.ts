/**
 * @module Setup for every test file: a test that makes no assertion fails ("expected any number
 * of assertion, but got none"), so a test cannot pass by checking nothing.
 */
import { beforeEach, expect } from 'vitest';

beforeEach(() => {
  expect.hasAssertions();
});
