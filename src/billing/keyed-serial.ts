/**
 * @module Runs async work one at a time per key, in the order it was asked for: webhook events of
 * one subscription are read from Stripe and stored in turn, so a read that started earlier can
 * never overwrite the state a later read stored.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** How many keys have work queued or running (for tests). */
  get busyKeys(): number {
    return this.tails.size;
  }
}
