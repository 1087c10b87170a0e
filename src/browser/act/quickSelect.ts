import { Effect } from "effect"
import { timed } from "../../platform/serverTiming.js"
import { callQuick, type checkedElement, type ElementArgs, elementArgs, type QuickAccess } from "./quickAccess.js"
import { RESOLVE_MS } from "./refGuards.js"
import type { ActionTarget } from "./target.js"

// Options of a <select> chosen on a checked ref without the library's waits (about 5 ms where the library's
// takes 10-15: a round trip per step): a page call that checks the ref and sees whether the select is plainly
// ready, then one that chooses the options (a page too busy to answer the first does nothing; the second does
// nothing once it comes later than the page's own clock allows). Ready: visible, enabled, and every value
// asked for names one of its options (by value or by visible label, as the library matches them), none of them
// disabled. The options are chosen and the page is told as the library tells it (an `input` event, then a
// `change`). Anything else (another element, a hidden or disabled select, an option not there yet or disabled,
// several values for a single select) declines, and the library selects the usual way: it waits, and says what
// is wrong.

interface QuickSelectArgs extends ElementArgs {
  readonly values: ReadonlyArray<string>
  /** Choose them (else only see whether it can), unless the page's clock is past this already. */
  readonly choose?: { readonly notAfter: number }
}

/**
 * Ready to choose (the page's clock then); the values of the options chosen; or why the quick way declines.
 */
type SelectAnswer = { readonly ready: number } | { readonly selected: ReadonlyArray<string> } | { readonly why: string }

/** In the utility world (self-contained: its source is sent; `find` is checkedElement): the options seen or chosen. */
export const selectInPage = (arg: QuickSelectArgs, find: typeof checkedElement): SelectAnswer => {
  interface Option {
    readonly value: string
    readonly label: string
    selected: boolean
    matches(selector: string): boolean
  }
  interface El {
    readonly localName: string
    readonly multiple?: boolean
    readonly options?: ArrayLike<Option>
    checkVisibility(options: object): boolean
    matches(selector: string): boolean
    closest(selector: string): unknown
    dispatchEvent(event: unknown): boolean
  }
  const g = globalThis as unknown as Record<string, unknown> & {
    Event: new(type: string, init: object) => unknown
    performance: { now(): number }
  }
  if (arg.choose !== undefined && g.performance.now() > arg.choose.notAfter) return { why: "late" }
  const found = find(arg)
  if ("why" in found) return found
  const el = found.el as El
  if (el.localName !== "select" || el.options === undefined) return { why: "kind" }
  if (!el.checkVisibility({ visibilityProperty: true })) return { why: "hidden" }
  if (el.matches(":disabled") || el.closest("[aria-disabled=true]") !== null) return { why: "disabled" }
  if (arg.values.length > 1 && el.multiple !== true) return { why: "single" }
  let wanted = [...arg.values]
  const chosen: Array<Option> = []
  for (const option of Array.from(el.options)) {
    const names = (v: string) => v === option.value || v === option.label
    if (!wanted.some(names)) continue
    if (option.matches(":disabled")) return { why: "option disabled" }
    chosen.push(option)
    wanted = el.multiple === true ? wanted.filter((v) => !names(v)) : []
    if (wanted.length === 0) break
  }
  if (wanted.length > 0) return { why: "options not found" }
  if (arg.choose === undefined) return { ready: g.performance.now() }
  for (const option of Array.from(el.options)) option.selected = chosen.includes(option)
  el.dispatchEvent(new g.Event("input", { bubbles: true, composed: true }))
  el.dispatchEvent(new g.Event("change", { bubbles: true }))
  return { selected: chosen.map((o) => o.value) }
}

/**
 * The options of a checked ref's select chosen the quick way: their values; or "declined" (nothing was done:
 * the library selects the usual way). A page that does not answer within RESOLVE_MS fails as busy.
 */
export const quickSelect = (access: QuickAccess, values: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const args: QuickSelectArgs = { ...elementArgs(access), values }
    const seen = yield* callQuick(access, selectInPage, args)
    if (seen === "busy") return yield* Effect.fail(access.busy())
    if (seen === undefined || !("ready" in seen)) return "declined" as const
    const chosen = yield* callQuick(access, selectInPage, { ...args, choose: { notAfter: seen.ready + RESOLVE_MS } })
    // Too late (or gone): nothing was chosen, and the library selects (a page that is busy now waits for it).
    return chosen !== "busy" && chosen !== undefined && "selected" in chosen ? chosen.selected : "declined" as const
  })

/** The options chosen the quick way where the select is ready for it; else the library's way (`library`). */
export const selectQuickOr = <E, R>(
  target: ActionTarget,
  values: ReadonlyArray<string>,
  library: Effect.Effect<ReadonlyArray<string>, E, R>
) =>
  target.quick === undefined ? library : Effect.flatMap(
    timed("quick")(quickSelect(target.quick, values)),
    (chosen) => chosen === "declined" ? timed("library")(library) : Effect.succeed(chosen)
  )
