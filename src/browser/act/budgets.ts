import { Clock, Data, Effect, Either } from "effect"
import { Conflict } from "../../domain/errors.js"
import { classifyPlaywrightError, type PlaywrightFailure, worthWaiting } from "./failures.js"
import { checkTimeout } from "./inputs.js"
import {
  type ActionError,
  type ActionName,
  type DescribeContext,
  describeFailure,
  formatDuration,
  INVESTIGATE,
  subject
} from "./messages.js"
import type { ActionTarget } from "./target.js"

// Running playwright calls within an action's time budget: one deadline for all its steps, a short first
// attempt for steps that may be retried, and a hard stop should a call hang.

/**
 * How long the first, short attempt of an action runs. Playwright retries at about 0, 20, 120 and 220 ms; an
 * element that is no longer on the page after that is reported at once, anything else is waited for with the
 * rest of the budget, in attempts twice as long each time: an element that goes away while the action waits
 * for it (disabled, then removed) is reported when the attempt under way ends, not when the budget does. (A
 * ref pinned to its element finds nothing once that element is gone, which one long attempt would wait out.)
 */
export const PROBE_MS = 500
/** Beyond an action's own timeout, how long before the call is abandoned as hung. */
const HANG_GRACE_MS = 2_000

class PlaywrightCallFailed extends Data.TaggedError("PlaywrightCallFailed")<{ readonly cause: unknown }> {}

export const call = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (cause) => new PlaywrightCallFailed({ cause }) })

/** An error read like playwright's own timeouts. */
export const timeoutError = (api: string, ms: number): Error => {
  const e = new Error(`${api}: Timeout ${ms}ms exceeded.`)
  e.name = "TimeoutError"
  return e
}

/** A promise bounded like playwright bounds its own calls, for the APIs that take no timeout. */
export const bounded = <A>(promise: Promise<A>, ms: number, api: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(api, ms)), ms)
  })
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer))
}

interface StepOptions {
  /** The target the step acts on, when it is not the action's own (drag's end, a fill field). */
  readonly target?: ActionTarget | undefined
  readonly context?: DescribeContext | undefined
  /** More context for the message, read from the page once a step has failed. */
  readonly explain?: ((f: PlaywrightFailure) => Effect.Effect<DescribeContext>) | undefined
  /**
   * Read from the page after an attempt failed in a way waiting may fix: whether waiting on can still help
   * (a select whose options have stopped changing will not come to have the one asked for).
   */
  readonly keepWaiting?: ((f: PlaywrightFailure) => Effect.Effect<boolean>) | undefined
}

export interface Steps {
  /** Runs once with the rest of the budget: for steps that must not be repeated. */
  readonly once: <A>(run: (timeout: number) => Promise<A>, options?: StepOptions) => Effect.Effect<A, ActionError>
  /**
   * An idempotent step: a short attempt first; an element gone from the page is reported then, anything else
   * (disabled, covered, hidden, animating, a slow render) gets a second attempt with the rest of the budget.
   */
  readonly idempotent: <A>(run: (timeout: number) => Promise<A>, options?: StepOptions) => Effect.Effect<A, ActionError>
  /**
   * A pointer action (click, double click): like `idempotent`, but a short attempt whose events were already
   * dispatched counts as done (only the wait for a navigation it started was cut short), so it never clicks twice.
   */
  readonly pointer: (run: (timeout: number) => Promise<void>, options?: StepOptions) => Effect.Effect<void, ActionError>
  readonly remaining: Effect.Effect<number>
}

const makeSteps = (action: ActionName, self: ActionTarget | undefined, timeoutMs: number, deadline: number): Steps => {
  const remaining = Effect.map(Clock.currentTimeMillis, (now) => Math.max(1, deadline - now))

  const fail = (f: PlaywrightFailure, options: StepOptions | undefined) =>
    Effect.gen(function*() {
      const target = options?.target ?? self
      const extra = options?.explain !== undefined ? yield* options.explain(f) : {}
      return yield* Effect.fail(describeFailure(f, target?.ref, action, {
        timeoutMs,
        ...(target !== undefined ? { description: target.description } : {}),
        ...options?.context,
        ...extra
      }))
    })

  const attempt = <A>(run: (timeout: number) => Promise<A>, timeout: number) =>
    Effect.mapError(call(() => run(timeout)), (e) => classifyPlaywrightError(e.cause))

  /**
   * Whether the target's locator matches anything now. An attempt whose locator never resolved may have found
   * nothing, or never run in a page too busy to answer in time: asked once more (within the rest of the
   * budget), the library says which. One that matches is waited for like any other state.
   */
  const stillThere = (target: ActionTarget | undefined, left: number) =>
    target === undefined
      ? Effect.succeed(false)
      : call(() => bounded(target.locator.count(), left, "locator.count")).pipe(
        Effect.map((n) => typeof n === "number" && n > 0),
        Effect.orElseSucceed(() => false)
      )

  const once = <A>(run: (timeout: number) => Promise<A>, options?: StepOptions) =>
    Effect.flatMap(remaining, (ms) => attempt(run, ms)).pipe(Effect.catchAll((f) => fail(f, options)))

  const twice = <A>(
    run: (timeout: number) => Promise<A>,
    options: StepOptions | undefined,
    landed: { readonly value: A } | undefined
  ) =>
    Effect.gen(function*() {
      let slice = PROBE_MS
      for (;;) {
        const ms = slice
        const tried = yield* Effect.either(Effect.flatMap(remaining, (left) => attempt(run, Math.min(ms, left))))
        if (Either.isRight(tried)) return tried.right
        const f = tried.left
        if (landed !== undefined && f.timedOut && f.landed) return landed.value
        const left = yield* remaining
        if (left <= 1) return yield* fail(f, options)
        if (!worthWaiting(f) && !(f.kind === "notFound" && (yield* stillThere(options?.target ?? self, left)))) {
          return yield* fail(f, options)
        }
        if (options?.keepWaiting !== undefined && !(yield* options.keepWaiting(f))) return yield* fail(f, options)
        slice *= 2
        // The last attempt takes the whole rest, never a sliver of it.
        if (left < slice * 2) return yield* once(run, options)
      }
    })

  return {
    once,
    idempotent: (run, options) => twice(run, options, undefined),
    pointer: (run, options) => twice(run, options, { value: undefined }),
    remaining
  }
}

interface RunSpec {
  readonly action: ActionName
  readonly timeoutMs: number | undefined
  readonly defaultMs: number
  readonly target?: ActionTarget | undefined
  /** Budget on top of the timeout (typing slowly takes as long as the text is). */
  readonly extraMs?: number | undefined
}

/** One action: its timeout checked, a deadline, a hard stop should a call hang, and a span. */
export const run = <A>(spec: RunSpec, body: (steps: Steps) => Effect.Effect<A, ActionError>): Effect.Effect<A, ActionError> =>
  Effect.gen(function*() {
    const timeoutMs = yield* checkTimeout(spec.action, spec.timeoutMs, spec.defaultMs)
    const budget = timeoutMs + (spec.extraMs ?? 0)
    const start = yield* Clock.currentTimeMillis
    const steps = makeSteps(spec.action, spec.target, timeoutMs, start + budget)
    return yield* body(steps).pipe(
      Effect.timeoutFail({
        duration: budget + HANG_GRACE_MS,
        onTimeout: () =>
          new Conflict({
            message: `${subject(spec.action, spec.target?.ref, { description: spec.target?.description })} did not ` +
              `finish within ${formatDuration(budget)}; the page may be busy or hung: ${INVESTIGATE}`
          })
      })
    )
  }).pipe(Effect.withSpan(`Actions.${spec.action}`))
