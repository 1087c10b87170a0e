import { Effect } from "effect"

// Work of svc's own that follows an answer (a role snapshot's identity pass): held back until `start` ends,
// begun at once when something needs it, or dropped when it is no longer worth doing, as long as it has
// not begun.

export interface DeferredPass {
  /** Settles when the work is done, dropped or failed. */
  readonly done: Promise<void>
  /** Begins it now, should it still be held back. */
  readonly now: () => void
  /** Drops it, should it not have begun (`instead` runs then). */
  readonly drop: () => void
}

export const deferPass = (
  start: Effect.Effect<void>,
  work: Effect.Effect<void>,
  instead: Effect.Effect<void>,
  onEnd: () => void
): DeferredPass => {
  let now: () => void = () => undefined
  const asked = new Promise<void>((resolve) => {
    now = resolve
  })
  let dropped = false
  let begun = false
  const done = Effect.runPromise(
    Effect.raceFirst(start, Effect.promise(() => asked)).pipe(
      Effect.zipRight(Effect.suspend(() => {
        if (dropped) return instead
        begun = true
        return work
      })),
      Effect.ensuring(Effect.sync(onEnd))
    )
  ).catch(() => undefined)
  return {
    done,
    now,
    drop: () => {
      if (begun) return
      dropped = true
      now()
    }
  }
}
