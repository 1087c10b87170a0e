import { Effect } from "effect"
import type { Page } from "playwright-core"
import type { BrowserUnavailable } from "../../domain/errors.js"
import { isTimeout, withTimeout } from "../pages/promises.js"
import type { sendOnPage } from "../pages/pageSession.js"
import { type CheckArgs, markedSelector } from "./refChecks.js"
import { type MainWorld, RESOLVE_MS } from "./refGuards.js"

// How a ref checked the fast way (refChecks.ts) is reached in one call to its page: the ways of acting on it
// without the library's waits (quickPointer.ts, quickSelect.ts, quickType.ts) each run one self-contained
// function in the library's utility world that first makes sure the element is checked and marked, then acts
// or declines; those whose action reaches the page as events put an event check on it (checkEvents).

/** svc's own session on the page, to send its input on; undefined: none (the page is closing). */
export type InputSession = (page: Page) => Promise<Parameters<typeof sendOnPage>[0] | undefined>

/** A checked ref's element, as the quick ways reach it. */
export interface QuickAccess {
  readonly page: Page
  /** The ref check's state key (refChecks.ts). */
  readonly stateKey: string
  /** The check to run first, when the element was not checked yet (the check as the action's lookup). */
  readonly check: CheckArgs | undefined
  /** The key the check guards and marks the element with (refIdentity.ts). */
  readonly guardKey: string
  readonly utility: MainWorld
  readonly inputSession: InputSession
  /** The failure to answer when the page does not answer within RESOLVE_MS (nothing was done). */
  readonly busy: () => BrowserUnavailable
}

/** What a page function gets to find the element: the check, and the selector of the element's mark. */
export interface ElementArgs {
  readonly stateKey: string
  readonly check: CheckArgs | undefined
  readonly guardKey: string
  readonly selector: string
}

export const elementArgs = (access: QuickAccess): ElementArgs => ({
  stateKey: access.stateKey,
  check: access.check,
  guardKey: access.guardKey,
  selector: markedSelector(access.guardKey)
})

/**
 * The selector of the element's mark once its check has run (the one-call check marks it, refChecks.ts):
 * code to run on the element can find it in the top document in the same call. Undefined while the check is
 * still to run (in the action's lookup), or where the ref was found another way.
 */
export const markOf = (access: QuickAccess | undefined): string | undefined =>
  access !== undefined && access.check === undefined ? markedSelector(access.guardKey) : undefined

/**
 * In the page (self-contained: its source is sent, as the second argument of a quick way's page function):
 * the ref's element, checked first where it was not yet (the check as the action's lookup), then found by
 * its mark; or why not.
 */
export const checkedElement = (arg: ElementArgs): { readonly el: unknown } | { readonly why: string } => {
  const g = globalThis as unknown as Record<string, unknown> & { document: { querySelector(selector: string): unknown } }
  if (g[arg.guardKey] === undefined) {
    const state = g[arg.stateKey] as { check(a: CheckArgs): string } | undefined
    if (arg.check === undefined || state === undefined) return { why: "unchecked" }
    const answer = state.check(arg.check)
    if (answer !== "ok") return { why: answer }
  }
  const el = g.document.querySelector(arg.selector)
  return el === null ? { why: "gone" } : { el }
}

/** What an event check saw: the events reached the element, or were stopped (the first went elsewhere). */
export interface EventReport {
  readonly delivered: boolean
  readonly stopped: boolean
}

/**
 * In the page (self-contained: its source is sent, as the third argument of a quick way's page function): a
 * check on the page's events of `types`, from now until it is released. The first trusted one that `ours`
 * takes for the action's own decides for all: it reached `el` (delivered), or went elsewhere (then it and
 * the rest are stopped before the page's own listeners see them, and cancelled). Released through
 * `globalThis[key].release()` (see releaseExpression), with `finish` adding to the report; by itself after 10 s.
 */
export const checkEvents = (
  key: string,
  el: unknown,
  types: ReadonlyArray<string>,
  ours: (event: unknown) => boolean,
  finish: (report: EventReport) => object
): void => {
  const g = globalThis as unknown as Record<string, unknown> & {
    addEventListener(type: string, listener: (event: unknown) => void, capture: boolean): void
    removeEventListener(type: string, listener: (event: unknown) => void, capture: boolean): void
    setTimeout(f: () => void, ms: number): unknown
    clearTimeout(timer: unknown): void
  }
  let delivered = false
  let stopped = false
  const listener = (event: unknown) => {
    const e = event as { isTrusted: boolean; composedPath(): Array<unknown>; stopImmediatePropagation(): void; preventDefault(): void }
    if (!e.isTrusted || !ours(event)) return
    if (!delivered && !stopped) {
      if (e.composedPath().includes(el)) delivered = true
      else stopped = true
    }
    if (!stopped) return
    e.stopImmediatePropagation()
    e.preventDefault()
  }
  const release = () => {
    for (const t of types) g.removeEventListener(t, listener, true)
    g.clearTimeout(timer)
    if ((g[key] as { release?: unknown } | undefined)?.release === release) delete g[key]
    return finish({ delivered, stopped })
  }
  // A check whose action never reported back does not outlive it by much.
  const timer = g.setTimeout(release, 10_000)
  for (const t of types) g.addEventListener(t, listener, true)
  Object.defineProperty(g, key, { value: { release }, configurable: true, enumerable: false, writable: true })
}

/** Releases the event check under `key`: its report, or `gone` (the document it was put on went away). */
export const releaseExpression = (key: string) =>
  `globalThis[${JSON.stringify(key)}]?.release() ?? { delivered: false, stopped: false, gone: true }`

/**
 * Runs `fn(arg, checkedElement, checkEvents)` in the utility world (its source is sent: it must be self-contained): its
 * answer, "busy" when the page did not answer within RESOLVE_MS, undefined when the call failed (the page
 * went away).
 */
export const callQuick = <A>(
  access: QuickAccess,
  fn: (arg: never, find: typeof checkedElement, check: typeof checkEvents) => A,
  arg: unknown
): Effect.Effect<A | "busy" | undefined> => {
  const call = access.utility(
    access.page,
    `(${fn.toString()})(${JSON.stringify(arg)}, ${checkedElement.toString()}, ${checkEvents.toString()})`
  )
  if (call === undefined) return Effect.succeed(undefined)
  return Effect.promise(() =>
    withTimeout(call as Promise<A>, RESOLVE_MS, "the page's answer").then(
      (a): A | "busy" | undefined => a,
      (e: unknown) => isTimeout(e) ? "busy" as const : undefined
    )
  )
}
