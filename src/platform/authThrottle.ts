import { Effect } from "effect"

// Failed authentication, slowed per client address. A request with the right credentials is never slowed:
// it is checked first, in constant time, and goes on at once. A failed one waits its turn: the failures of
// one address are answered one at a time, each after a pause that grows with that address's recent
// failures (none for the first few: a typo costs nothing), up to a cap; and when too many already wait,
// the next is refused at once. So guessing from one address runs at a few attempts a second at most,
// however many connections it opens.

export interface ThrottleOptions {
  /** Failures answered without a pause. */
  readonly free?: number
  /** The first pause, doubled with each further failure. */
  readonly baseMs?: number
  /** The longest pause. */
  readonly maxMs?: number
  /** Failures are forgotten after this long without one. */
  readonly forgetMs?: number
  /** Failed requests of one address waiting at most; beyond, refused without waiting. */
  readonly maxWaiting?: number
  /** Addresses tracked at most (the oldest are forgotten). */
  readonly maxAddresses?: number
}

interface AddressState {
  failures: number
  lastFailureAt: number
  /** The end of the last pause given out: the next one starts after it (one at a time). */
  busyUntil: number
  waiting: number
}

export interface AuthThrottle {
  /**
   * A failed attempt from `address`: resolves when its answer may go out, with `"refuse"` when too many
   * of its attempts already wait (answer at once, 429).
   */
  readonly failed: (address: string) => Effect.Effect<"answer" | "refuse">
  /** How many failures the address has on record (for tests and status). */
  readonly failuresOf: (address: string) => number
}

export const makeAuthThrottle = (options: ThrottleOptions = {}): AuthThrottle => {
  const free = options.free ?? 5
  const baseMs = options.baseMs ?? 50
  const maxMs = options.maxMs ?? 1_000
  const forgetMs = options.forgetMs ?? 10 * 60_000
  const maxWaiting = options.maxWaiting ?? 8
  const maxAddresses = options.maxAddresses ?? 4_096
  const states = new Map<string, AddressState>()

  const stateOf = (address: string, now: number): AddressState => {
    let s = states.get(address)
    if (s !== undefined && now - s.lastFailureAt > forgetMs && s.waiting === 0) {
      states.delete(address)
      s = undefined
    }
    if (s === undefined) {
      s = { failures: 0, lastFailureAt: now, busyUntil: now, waiting: 0 }
      if (states.size >= maxAddresses) states.delete(states.keys().next().value!)
      states.set(address, s)
    }
    return s
  }

  const failed = (address: string) =>
    Effect.suspend(() => {
      const now = Date.now()
      const s = stateOf(address, now)
      s.failures++
      s.lastFailureAt = now
      if (s.failures <= free) return Effect.succeed("answer" as const)
      if (s.waiting >= maxWaiting) return Effect.succeed("refuse" as const)
      const pause = Math.min(maxMs, baseMs * 2 ** Math.min(20, s.failures - free - 1))
      const start = Math.max(now, s.busyUntil)
      s.busyUntil = start + pause
      s.waiting++
      return Effect.sleep(s.busyUntil - now).pipe(
        Effect.as("answer" as const),
        Effect.ensuring(Effect.sync(() => void s.waiting--))
      )
    })

  return { failed, failuresOf: (address) => states.get(address)?.failures ?? 0 }
}

/** The one throttle of the process: both listeners and every webhook count failures together per address. */
export const authThrottle: AuthThrottle = makeAuthThrottle()
