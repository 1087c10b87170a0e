// A click that need not wait two frames. Before it dispatches, the library waits until the element is
// visible, enabled and stable (the same box in two animation frames in a row: one to two frames, 17-33 ms on
// a 60 Hz page, most of what a click costs), then checks, after dispatching, that the click reached the
// element. Here one raw call in the library's utility world checks all of that at once: the element's box
// now and again in the next frame, and what is at the point the click will land. An element that passes is
// clicked without the library's own waits (its `force`); any other answer, a hidden tab (no frames), an
// element in an iframe, or a call that fails or is slow leaves the click to the library's full checks, so
// what an agent is told about an element that is covered, disabled or moving is what it was.

// The few DOM shapes the check touches (the project compiles without the DOM library).
interface Box {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}
interface ClickElement {
  getClientRects(): ArrayLike<Box>
  checkVisibility(options: { visibilityProperty: boolean }): boolean
  matches(selector: string): boolean
  closest(selector: string): unknown
  contains(other: unknown): boolean
  getRootNode(): { elementFromPoint(x: number, y: number): unknown }
}
interface ClickWindow {
  readonly top: unknown
  readonly innerWidth: number
  readonly innerHeight: number
  readonly document: { readonly visibilityState: string }
  requestAnimationFrame(callback: () => void): number
  setTimeout(callback: () => void, ms: number): number
}

/** How long the check waits for the page's next frame before it leaves the click to the library. */
const FRAME_WAIT_MS = 100

/** Why the element may not be clicked at once; "ready" when it may. Runs in the page (self-contained). */
export const clickReadiness = async (el: ClickElement, frameWaitMs: number): Promise<string> => {
  const win = globalThis as unknown as ClickWindow
  if (win !== win.top) return "in a frame"
  if (win.document.visibilityState !== "visible") return "hidden tab"
  const box = () => {
    const r = el.getClientRects()[0]
    return r === undefined ? undefined : [r.left, r.top, r.width, r.height] as const
  }
  const before = box()
  if (before === undefined || before[2] <= 0 || before[3] <= 0) return "no box"
  if (!el.checkVisibility({ visibilityProperty: true })) return "hidden"
  if (el.matches(":disabled") || el.closest("[aria-disabled=true]") !== null) return "disabled"
  const framed = await Promise.race([
    new Promise<boolean>((resolve) => win.requestAnimationFrame(() => resolve(true))),
    new Promise<boolean>((resolve) => win.setTimeout(() => resolve(false), frameWaitMs))
  ])
  if (!framed) return "no frame"
  const after = box()
  if (after === undefined || after.some((v, i) => v !== before[i])) return "moving"
  const [left, top, width, height] = after
  if (left < 0 || top < 0 || left + width > win.innerWidth || top + height > win.innerHeight) return "not in view"
  const hit = el.getRootNode().elementFromPoint(left + width / 2, top + height / 2)
  if (hit === null || (hit !== el && !el.contains(hit))) return "covered"
  return "ready"
}

/**
 * The check as an expression for the utility world: `find` is an expression for the element (null when
 * there is none). Its answer is "ready", or why not.
 */
export const readinessExpression = (find: string): string =>
  `(async () => { const el = ${find}; return el === null || el === undefined ? "not found" : ` +
  `(${clickReadiness.toString()})(el, ${FRAME_WAIT_MS}) })()`
