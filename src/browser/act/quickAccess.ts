import { Effect } from "effect"
import type { Page } from "playwright-core"
import type { BrowserUnavailable } from "../../domain/errors.js"
import { isTimeout, withTimeout } from "../pages/promises.js"
import type { sendOnPage } from "../pages/pageSession.js"
import type { CheckArgs } from "./refChecks.js"
import { GUARD_ATTRIBUTE } from "./refIdentity.js"
import { type MainWorld, RESOLVE_MS } from "./refGuards.js"

// How a ref checked the fast way (refChecks.ts) is reached in one call to its page: the ways of acting on it
// without the library's waits (quickPointer.ts, quickSelect.ts) each run one self-contained function in the
// library's utility world that first makes sure the element is checked and marked, then acts or declines.

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

/** What a page function gets to find the element: the check, and the mark's attribute. */
export interface ElementArgs {
  readonly stateKey: string
  readonly check: CheckArgs | undefined
  readonly guardKey: string
  readonly attribute: string
}

export const elementArgs = (access: QuickAccess): ElementArgs => ({
  stateKey: access.stateKey,
  check: access.check,
  guardKey: access.guardKey,
  attribute: GUARD_ATTRIBUTE
})

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
  const el = g.document.querySelector(`[${arg.attribute}="${arg.guardKey}"]`)
  return el === null ? { why: "gone" } : { el }
}

/**
 * Runs `fn(arg, checkedElement)` in the utility world (its source is sent: it must be self-contained): its
 * answer, "busy" when the page did not answer within RESOLVE_MS, undefined when the call failed (the page
 * went away).
 */
export const callQuick = <A>(
  access: QuickAccess,
  fn: (arg: never, find: typeof checkedElement) => A,
  arg: unknown
): Effect.Effect<A | "busy" | undefined> => {
  const call = access.utility(access.page, `(${fn.toString()})(${JSON.stringify(arg)}, ${checkedElement.toString()})`)
  if (call === undefined) return Effect.succeed(undefined)
  return Effect.promise(() =>
    withTimeout(call as Promise<A>, RESOLVE_MS, "the page's answer").then(
      (a): A | "busy" | undefined => a,
      (e: unknown) => isTimeout(e) ? "busy" as const : undefined
    )
  )
}
