// The timeout every bridge call runs under, made cheap because every call pays it.

import { Effect, FiberId } from "effect"

/**
 * `self`, or `onTimeout()` once it has run `ms` milliseconds (wall clock), `self` then interrupted (which
 * aborts its request). Every bridge call goes through this, so it costs one child fiber and a timer where
 * Effect.timeoutFail races two fibers and merges their state back (measured ~50-80 µs more per call).
 */
export const withTimeout = <A, E, E2>(self: Effect.Effect<A, E>, ms: number, onTimeout: () => E2): Effect.Effect<A, E | E2> =>
  Effect.flatMap(Effect.fork(self), (child) =>
    Effect.async<A, E | E2>((resume) => {
      let settled = false
      const timer = setTimeout(() => {
        if (settled) return
        settled = true
        child.unsafeInterruptAsFork(FiberId.none)
        resume(Effect.fail(onTimeout()))
      }, ms)
      child.addObserver((exit) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(exit)
      })
      return Effect.sync(() => {
        settled = true
        clearTimeout(timer)
        child.unsafeInterruptAsFork(FiberId.none)
      })
    }))
