/**
 * @module A terminal's scrollback: the last N bytes of its output (a ring buffer), replayed
 * to a client that reattaches before live output resumes.
 */

export const SCROLLBACK_BYTES = 64 * 1024;

export class Scrollback {
  private readonly ring: Buffer;
  /** Where the next byte goes. */
  private next = 0;
  private filled = 0;

  constructor(readonly capacity: number = SCROLLBACK_BYTES) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`scrollback capacity must be a positive integer, got ${capacity}`);
    this.ring = Buffer.alloc(capacity);
  }

  /** Keeps `data`, dropping the oldest bytes beyond the capacity. */
  push(data: Buffer): void {
    const chunk = data.length > this.capacity ? data.subarray(data.length - this.capacity) : data;
    const first = Math.min(chunk.length, this.capacity - this.next);
    chunk.copy(this.ring, this.next, 0, first);
    chunk.copy(this.ring, 0, first);
    this.next = (this.next + chunk.length) % this.capacity;
    this.filled = Math.min(this.capacity, this.filled + chunk.length);
  }

  /** The kept bytes, oldest first (a copy). */
  contents(): Buffer {
    if (this.filled < this.capacity) return Buffer.from(this.ring.subarray(0, this.filled));
    return Buffer.concat([this.ring.subarray(this.next), this.ring.subarray(0, this.next)]);
  }
}
