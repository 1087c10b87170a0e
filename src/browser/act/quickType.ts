import { Effect } from "effect"
import { timed } from "../../platform/serverTiming.js"
import { sendOnPage } from "../pages/pageSession.js"
import {
  callQuick,
  type checkedElement,
  type checkEvents,
  type ElementArgs,
  elementArgs,
  type EventReport,
  type QuickAccess,
  releaseExpression
} from "./quickAccess.js"
import type { ActionTarget } from "./target.js"

// Text set into a checked ref's field without the library's waits (about 5 ms where the library's fill takes
// 10-15: a round trip per step), the way the library sets it: in the page call that checks the ref, when the
// field is plainly ready (a visible, enabled, writable text field, text area or rich-text editor), it is
// focused and its content selected; then the text goes in as the browser's own text input (its beforeinput
// and input events, trusted), over svc's own session, replacing the selection. In that same call an input
// check is put on the page: should the text's input go to any other element (the page moved the focus between
// the call and the text), it is cancelled before the page sees it, and the library fills the field the usual
// way (fill replaces the whole value, so nothing is doubled). Anything else (another kind of input: a date, a
// number, a file; a hidden, disabled or read-only field; empty text, which the library deletes with a key)
// declines.

interface QuickTypeArgs extends ElementArgs {
  readonly inputKey: string
  /** TEXT_TYPES. */
  readonly textTypes: ReadonlyArray<string>
}

type TypeAnswer = { readonly ready: true } | { readonly why: string }

/** Input types whose value is text the browser's text input sets as it is. */
const TEXT_TYPES = ["", "text", "search", "email", "url", "tel", "password"]

/**
 * In the utility world (self-contained: its source is sent; `find` is checkedElement, `check` checkEvents):
 * the field focused and its content selected, and the input check put on.
 */
export const prepareQuickType = (arg: QuickTypeArgs, find: typeof checkedElement, check: typeof checkEvents): TypeAnswer => {
  interface El {
    readonly localName: string
    readonly isContentEditable: boolean
    readonly ownerDocument: { readonly activeElement: unknown; getSelection(): { selectAllChildren(node: unknown): void } | null }
    getAttribute(name: string): string | null
    checkVisibility(options: object): boolean
    matches(selector: string): boolean
    closest(selector: string): unknown
    focus(): void
    select?(): void
  }
  const found = find(arg)
  if ("why" in found) return found
  const el = found.el as El
  const type = (el.getAttribute("type") ?? "").trim().toLowerCase()
  const field = el.localName === "textarea" || (el.localName === "input" && arg.textTypes.includes(type))
  if (!field && !el.isContentEditable) return { why: "kind" }
  if (!el.checkVisibility({ visibilityProperty: true })) return { why: "hidden" }
  if (el.matches(":disabled") || el.closest("[aria-disabled=true]") !== null) return { why: "disabled" }
  if (field ? el.matches(":read-only") : el.getAttribute("aria-readonly") === "true") return { why: "read-only" }
  el.focus()
  if (el.ownerDocument.activeElement !== el) return { why: "not focused" }
  if (field) el.select?.()
  else el.ownerDocument.getSelection()?.selectAllChildren(el)
  // Decided by the text's own input (the page's script cannot make trusted input events).
  check(arg.inputKey, el, ["beforeinput", "input"], () => true, (r) => r)
  return { ready: true }
}

/**
 * `text` set into a checked ref's field the quick way: "done"; or "declined" (the page's field did not get
 * it: the library fills the usual way). A page that does not answer within RESOLVE_MS fails as busy.
 */
export const quickType = (access: QuickAccess, text: string) =>
  Effect.gen(function*() {
    if (text === "") return "declined" as const
    const { page, utility } = access
    const own = yield* Effect.promise(() => access.inputSession(page).catch(() => undefined))
    if (own === undefined) return "declined" as const
    const inputKey = `__svcInput_${Math.random().toString(36).slice(2)}`
    const release = () => utility(page, releaseExpression(inputKey)) as Promise<EventReport & { readonly gone?: boolean }> | undefined
    const args: QuickTypeArgs = { ...elementArgs(access), inputKey, textTypes: TEXT_TYPES }
    const answer = yield* callQuick(access, prepareQuickType, args)
    if (answer === "busy") {
      void release()?.catch(() => undefined)
      return yield* Effect.fail(access.busy())
    }
    if (answer === undefined || "why" in answer) return "declined" as const
    const sent = yield* Effect.promise(() => sendOnPage(own, "Input.insertText", { text }).then(() => true, () => false))
    const report = yield* Effect.promise(() => release()?.catch(() => undefined) ?? Promise.resolve(undefined))
    if (report === undefined || report.gone === true) return sent ? "done" as const : "declined" as const
    return report.delivered ? "done" as const : "declined" as const
  })

/** The text set the quick way where the field is ready for it; else the library's way (`library`). */
export const typeQuickOr = <E, R>(target: ActionTarget, text: string, library: Effect.Effect<void, E, R>) =>
  target.quick === undefined ? library : Effect.flatMap(
    timed("quick")(quickType(target.quick, text)),
    (done) => done === "declined" ? timed("library")(library) : Effect.void
  )
