/**
 * @module A counting semaphore, used to cap concurrent reconciles per kind and per provider.
 */

export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.active--;
  }

  get inUse(): number {
    return this.active;
  }
}

/** One semaphore per key, made on first use. */
export class KeyedSemaphores {
  private readonly byKey = new Map<string, Semaphore>();

  constructor(private readonly limitFor: (key: string) => number) {}

  get(key: string): Semaphore {
    let sem = this.byKey.get(key);
    if (!sem) {
      sem = new Semaphore(this.limitFor(key));
      this.byKey.set(key, sem);
    }
    return sem;
  }
}
