// What keeps observing a tab bounded: a ring keeps only the newest entries, and long texts are clipped
// (deadlines on calls into the automation library are pages/promises.ts's withTimeout).

/** Increasing numbers from 1; rings that share one number their items in the order they came, across rings. */
export const sequence = (): () => number => {
  let next = 1
  return () => next++
}

/**
 * A bounded ring: the newest `capacity` items, each with an increasing sequence number (its own from 1, or
 * from a sequence it shares with other rings).
 */
export class Ring<A> {
  private readonly items: Array<A | undefined>
  private start = 0
  private count = 0
  constructor(readonly capacity: number, private readonly nextSeq: () => number = sequence()) {
    this.items = new Array<A | undefined>(capacity)
  }
  /** Adds an item built with its sequence number; the oldest is dropped when full. */
  push(make: (seq: number) => A): A {
    const item = make(this.nextSeq())
    if (this.count < this.capacity) {
      this.items[(this.start + this.count) % this.capacity] = item
      this.count++
    } else {
      this.items[this.start] = item
      this.start = (this.start + 1) % this.capacity
    }
    return item
  }
  /** Oldest first. */
  toArray(): Array<A> {
    const out: Array<A> = []
    for (let i = 0; i < this.count; i++) out.push(this.items[(this.start + i) % this.capacity]!)
    return out
  }
  /** Newest first, stopping when visit returns true. */
  findNewest(visit: (a: A) => boolean): A | undefined {
    for (let i = this.count - 1; i >= 0; i--) {
      const item = this.items[(this.start + i) % this.capacity]!
      if (visit(item)) return item
    }
    return undefined
  }
  clear(): void {
    this.items.fill(undefined)
    this.start = 0
    this.count = 0
  }
  get size(): number {
    return this.count
  }
}

/** Longest URL kept in an entry or quoted in a message. */
export const MAX_URL_TEXT = 2_000

/** The text, or its first max characters and how many more there were. */
export const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`)
