import { Effect, FiberRef } from "effect"

// Where a request's time went, for the `Server-Timing` response header (shown by browsers' network panels
// and `curl -v`; the benchmarks read it to tell the cost of the checks that make an action by ref safe
// from the action itself). A request's parts add up their durations under their names.

/** Milliseconds per part of the request being served; undefined outside one. */
const Current = FiberRef.unsafeMake<Map<string, number> | undefined>(undefined)

/** Runs `effect` and adds its duration to the part `name` of the current request's timing. */
export const timed = (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(Current), (parts) => {
    if (parts === undefined) return effect
    return Effect.suspend(() => {
      const t0 = performance.now()
      return Effect.ensuring(effect, Effect.sync(() => parts.set(name, (parts.get(name) ?? 0) + performance.now() - t0)))
    })
  })

/** Runs a request with a timing of its own; `parts` is filled as it runs (read it once it is done). */
export const withTiming = <A, E, R>(effect: Effect.Effect<A, E, R>, parts: Map<string, number>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, Current, parts)

/** The header's value: `name;dur=1.2` per part, in the order they were first timed. */
export const serverTimingHeader = (parts: ReadonlyMap<string, number>): string =>
  [...parts].map(([name, ms]) => `${name};dur=${Math.round(ms * 100) / 100}`).join(", ")
