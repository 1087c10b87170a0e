import { Effect } from "effect"
import type { Page } from "playwright-core"
import type { ScrollPosition } from "../../domain/browser.js"
import { InvalidRequest } from "../../domain/errors.js"
import { bounded, run } from "./budgets.js"
import { viewportOf } from "./inPage.js"
import type { ActionTarget } from "./target.js"

// Scrolling by the mouse wheel, as a person scrolls: over the page (the viewport's middle) or over one
// element (a list, a map, a panel that scrolls on its own). The answer says where the scrolled part now is
// and how far it goes, so an agent knows whether it reached the end (an infinite list has grown if the end
// moved away).

const SCROLL_TIMEOUT_MS = 5_000

interface Scrollable {
  readonly scrollLeft: number
  readonly scrollTop: number
  readonly scrollWidth: number
  readonly scrollHeight: number
  readonly clientWidth: number
  readonly clientHeight: number
  readonly tagName: string
  readonly id: string
  readonly className: unknown
  readonly parentElement: Scrollable | null
}

interface Position {
  readonly x: number
  readonly y: number
  readonly maxX: number
  readonly maxY: number
  readonly scroller: string
}

/**
 * Runs in the page: the position of the element's nearest part that scrolls (itself or an ancestor), else of
 * the page, once it has held still for a few reads (a wheel's scroll is animated over a few frames).
 */
const positionOf = (node: unknown, settle: boolean): Promise<Position> =>
  new Promise((resolve) => {
    const w = globalThis as unknown as {
      document: { scrollingElement: Scrollable | null; documentElement: Scrollable }
      getComputedStyle: (e: Scrollable) => { overflowX: string; overflowY: string }
      setTimeout: (f: () => void, ms: number) => void
    }
    const scrolls = (e: Scrollable) => {
      const style = w.getComputedStyle(e)
      return (e.scrollHeight > e.clientHeight && /auto|scroll|overlay/.test(style.overflowY)) ||
        (e.scrollWidth > e.clientWidth && /auto|scroll|overlay/.test(style.overflowX))
    }
    const read = (): Position => {
      let e = node as Scrollable | null
      while (e !== null && !scrolls(e)) e = e.parentElement
      const page = w.document.scrollingElement ?? w.document.documentElement
      const at = e ?? page
      const name = at === page
        ? "page"
        : `${at.tagName.toLowerCase()}${at.id !== "" ? `#${at.id}` : typeof at.className === "string" && at.className.trim() !== "" ? `.${at.className.trim().split(/\s+/)[0]}` : ""}`
      return {
        x: Math.round(at.scrollLeft),
        y: Math.round(at.scrollTop),
        maxX: Math.max(0, at.scrollWidth - at.clientWidth),
        maxY: Math.max(0, at.scrollHeight - at.clientHeight),
        scroller: name
      }
    }
    // Still for 3 reads 20 ms apart (a smooth scroll takes 100-200 ms), or 1.5 s at most.
    let last = read()
    if (!settle) return resolve(last)
    let still = 0
    let reads = 0
    const next = () => {
      const now = read()
      still = now.x === last.x && now.y === last.y && now.maxY === last.maxY ? still + 1 : 0
      last = now
      if (still >= 3 || ++reads >= 75) resolve(now)
      else w.setTimeout(next, 20)
    }
    w.setTimeout(next, 20)
  })

/** The wheel turned by `dx`, `dy` CSS pixels over the element (or the page's middle); where it scrolled to. */
export const scroll = (
  page: Page,
  dx: number,
  dy: number,
  target: ActionTarget | undefined,
  options: { readonly timeoutMs?: number | undefined } = {}
) =>
  Effect.gen(function*() {
    if (!Number.isFinite(dx) || !Number.isFinite(dy) || (dx === 0 && dy === 0)) {
      return yield* new InvalidRequest({
        message: "scroll: say how far, in CSS pixels: dy down (negative: up), dx right (negative: left), e.g. dy 600"
      })
    }
    return yield* run({ action: "scroll", target, timeoutMs: options.timeoutMs, defaultMs: SCROLL_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        // The wheel turns where the pointer is: over the element (scrolled into view, as a hover does), or the page.
        if (target !== undefined) {
          yield* steps.idempotent((timeout) => target.locator.hover({ timeout }))
        } else {
          const size = yield* steps.once((timeout) => bounded(page.evaluate(viewportOf), timeout, "page.evaluate"))
          yield* steps.once((timeout) =>
            bounded(page.mouse.move(Math.floor(size.width / 2), Math.floor(size.height / 2)), timeout, "mouse.move")
          )
        }
        // Read from the element, or from the document's root (whose nearest scroller is the page).
        const over = target?.locator ?? page.locator(":root")
        const before = yield* steps.once((timeout) => over.evaluate(positionOf, false, { timeout }))
        yield* steps.once((timeout) => bounded(page.mouse.wheel(dx, dy), timeout, "mouse.wheel"))
        const after = yield* steps.once((timeout) => over.evaluate(positionOf, true, { timeout }))
        const { maxX, maxY, scroller, x, y } = after
        return { x, y, maxX, maxY, moved: x !== before.x || y !== before.y, scroller } satisfies ScrollPosition
      }))
  })
