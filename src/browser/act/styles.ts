import { Effect } from "effect"
import type { CDPSession, Page } from "playwright-core"
import type { CssRule } from "../../domain/styles.js"
import { errorText } from "../pages/promises.js"
import { type CdpMatched, matchedRules, type SheetHeader } from "../inspect/cssRules.js"
import { bounded, run } from "./budgets.js"
import type { ActionTarget } from "./target.js"

// An element's CSS: its computed values, read in the page, and the rules that match it, read over a CDP
// session of its own (the CSS domain, on for this call only). The element is handed from the page to that
// session through a symbol on the window, taken off again as it is read; an element inside a frame has its
// computed values only.

const STYLES_TIMEOUT_MS = 5_000
const HANDOFF = "svc.styles"

export interface ElementStyles {
  /** Every computed property of the element. */
  readonly computed: Readonly<Record<string, string>>
  readonly rules: ReadonlyArray<CssRule>
  readonly rulesUnavailable?: string | undefined
}

/** In the page: every computed value, and the element left for the CDP session if it is in the top frame. */
const computedAndHandOff = (element: unknown, key: string): { computed: Record<string, string>; topFrame: boolean } => {
  const el = element as { ownerDocument: { defaultView: { getComputedStyle(e: unknown): CSSLike; top: unknown } } }
  interface CSSLike {
    readonly length: number
    [i: number]: string
    getPropertyValue(name: string): string
  }
  const view = el.ownerDocument.defaultView
  const cs = view.getComputedStyle(element)
  const computed: Record<string, string> = {}
  for (let i = 0; i < cs.length; i++) computed[cs[i]!] = cs.getPropertyValue(cs[i]!)
  const topFrame = view.top === view
  if (topFrame) (globalThis as Record<symbol, unknown>)[Symbol.for(key)] = element
  return { computed, topFrame }
}

/** The rules matching the element left on the top frame's window, read over a session made for this call. */
const readRules = async (page: Page, timeoutMs: number): Promise<ReadonlyArray<CssRule>> => {
  const session: CDPSession = await page.context().newCDPSession(page)
  const send = session.send.bind(session) as (method: string, params?: object) => Promise<any>
  try {
    const taken = await send("Runtime.evaluate", {
      expression: `(() => { const k = Symbol.for(${JSON.stringify(HANDOFF)}); const el = globalThis[k]; delete globalThis[k]; return el })()`
    })
    const objectId = taken.result?.objectId as string | undefined
    if (objectId === undefined) throw new Error("the element was not handed over")
    const sheets = new Map<string, SheetHeader>()
    session.on("CSS.styleSheetAdded", (e: { header: SheetHeader & { styleSheetId: string } }) => sheets.set(e.header.styleSheetId, e.header))
    await send("DOM.getDocument", { depth: 0 })
    await bounded(send("CSS.enable"), timeoutMs, "CSS.enable")
    const { nodeId } = await send("DOM.requestNode", { objectId })
    const matched = (await send("CSS.getMatchedStylesForNode", { nodeId })) as CdpMatched
    return matchedRules(matched, sheets, page.url())
  } finally {
    // Detaching ends it on a session of its own; on the relay's shared attachment it must be turned off.
    await send("CSS.disable").catch(() => undefined)
    await session.detach().catch(() => undefined)
  }
}

export const styles = (page: Page, target: ActionTarget, options: { readonly timeoutMs?: number | undefined } = {}) =>
  run({ action: "styles", target, timeoutMs: options.timeoutMs, defaultMs: STYLES_TIMEOUT_MS }, (steps) =>
    Effect.gen(function*() {
      const read = yield* steps.idempotent((timeout) => target.locator.evaluate(computedAndHandOff, HANDOFF, { timeout }))
      if (!read.topFrame) {
        const result: ElementStyles = {
          computed: read.computed,
          rules: [],
          rulesUnavailable: "the element is inside a frame: its rules are not read (its computed values are)"
        }
        return result
      }
      const rules = yield* Effect.either(Effect.tryPromise(() => readRules(page, options.timeoutMs ?? STYLES_TIMEOUT_MS)))
      const result: ElementStyles = rules._tag === "Right"
        ? { computed: read.computed, rules: rules.right }
        : { computed: read.computed, rules: [], rulesUnavailable: `the browser did not give its rules: ${errorText(rules.left.error)}` }
      return result
    }))
