/**
 * @module Caps on concurrent reconciles, per kind and per provider, that never hold a worker:
 * a reconcile that finds its cap reached is parked here (its uid, not a worker waiting), and
 * each release hands back the uid parked longest, for the caller to queue again. So one slow
 * provider at its cap cannot occupy the workers that other providers' work needs.
 */

export class Slots {
  private active = 0;
  private readonly parked: string[] = [];
  private readonly parkedSet = new Set<string>();

  constructor(readonly limit: number) {}

  /** Takes a slot if one is free. */
  tryAcquire(): boolean {
    if (this.active >= this.limit) return false;
    this.active++;
    return true;
  }

  /** Remembers `uid` until a slot is released (once, however often it is parked). */
  park(uid: string): void {
    if (this.parkedSet.has(uid)) return;
    this.parkedSet.add(uid);
    this.parked.push(uid);
  }

  /** Frees a slot; returns the uid parked longest, which the caller queues again. */
  release(): string | undefined {
    this.active--;
    const next = this.parked.shift();
    if (next !== undefined) this.parkedSet.delete(next);
    return next;
  }

}

/** One set of slots per key, made on first use. */
export class KeyedSlots {
  private readonly byKey = new Map<string, Slots>();

  constructor(private readonly limitFor: (key: string) => number) {}

  get(key: string): Slots {
    let slots = this.byKey.get(key);
    if (!slots) {
      slots = new Slots(this.limitFor(key));
      this.byKey.set(key, slots);
    }
    return slots;
  }
}
