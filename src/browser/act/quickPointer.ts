import { Effect } from "effect"
import { type BrowserUnavailable, InvalidRequest } from "../../domain/errors.js"
import { timed } from "../../platform/serverTiming.js"
import { sendOnPage } from "../pages/pageSession.js"
import { type ActionName, subject } from "./messages.js"
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

// A plain click or double click, a hover, a scroll into view, or a check or uncheck (a form's fill) of a
// checked ref without the library's waits (a click about 5 ms where the library's takes 30-40, a hover, a
// scroll or a check about 5 where the library's takes 30-50: it waits a frame or two for the element to be
// still, then makes a round trip per step). Only when the gesture is plainly safe, decided in one call in the
// library's utility world, in the same page task that checks the ref (refChecks.ts): the element is visible
// and not animating (nor any ancestor); an element whose centre is outside the viewport is scrolled to its
// middle there and then (all a scroll into view does); then its centre is in the viewport and the element is
// what the page has at that point; for a click, it is also enabled and not a select, an option or a file
// input; to check or uncheck, it is a checkbox, radio button or switch not in that state yet (one in that
// state already is left alone, with no event). In that same task a hit check is put on the page: when the
// gesture's first event would reach any other element (the page moved or rebuilt something between the check
// and the events), it and the rest of the gesture's events are stopped before the page's own listeners see
// them (a hover still moves the pointer there: the browser's hover styles cannot be stopped). The mouse events
// then go in one burst over svc's own session. Anything else (a hidden, covered, animating element; a click on
// a disabled element or one of those kinds; events stopped) declines, and the library acts the usual way, with
// its waits; a page that does not answer within RESOLVE_MS is reported busy, as a ref check is.

/**
 * The gestures that can go the quick way: a scroll into view (the element brought into view, no event sent);
 * check and uncheck (a click where the checkbox, radio button or switch is not in that state yet).
 */
export type PointerGesture = "click" | "dblclick" | "hover" | "scroll" | "check" | "uncheck"

/** Where the events should go; or why the quick way declines. */
type QuickAnswer = { readonly x: number; readonly y: number } | { readonly why: string } | { readonly done: true }

/** What the hit check saw of the events. */
interface HitReport extends EventReport {
  /** After a check or uncheck: whether the element is checked now (undefined: it no longer says). */
  readonly checked?: boolean | undefined
}

export interface QuickPointerArgs extends ElementArgs {
  readonly gesture: PointerGesture
  readonly hitKey: string
}

/**
 * In the utility world (self-contained: its source is sent; `find` is checkedElement, `check` checkEvents):
 * the check above, and the hit check put on.
 */
export const prepareQuickPointer = (
  arg: QuickPointerArgs,
  find: typeof checkedElement,
  check: typeof checkEvents
): QuickAnswer => {
  interface El {
    readonly localName: string
    readonly type?: string
    readonly checked?: boolean
    getAttribute(name: string): string | null
    readonly parentNode: unknown
    readonly shadowRoot: { elementFromPoint(x: number, y: number): El | null } | null
    checkVisibility(options: object): boolean
    matches(selector: string): boolean
    closest(selector: string): unknown
    contains(other: unknown): boolean
    scrollIntoView(options: object): void
    getClientRects(): ArrayLike<{ readonly left: number; readonly top: number; readonly width: number; readonly height: number }>
  }
  const g = globalThis as unknown as Record<string, unknown> & {
    innerWidth: number
    innerHeight: number
    visualViewport: { readonly scale: number; readonly offsetLeft: number; readonly offsetTop: number } | null
    document: {
      elementFromPoint(x: number, y: number): El | null
      getAnimations(): Array<{ readonly playState: string; readonly effect: { readonly target?: El | null } | null }>
    }
  }
  const found = find(arg)
  if ("why" in found) return found
  const el = found.el as El
  const toggle = arg.gesture === "check" || arg.gesture === "uncheck"
  const click = arg.gesture === "click" || arg.gesture === "dblclick" || toggle
  /** Whether a checkbox, radio button or switch is checked (as the library reads it); undefined: not one. */
  const checkedState = (): boolean | undefined => {
    const type = String(el.type).toLowerCase()
    if (el.localName === "input" && (type === "checkbox" || type === "radio")) return el.checked === true
    const role = (el.getAttribute("role") ?? "").trim().toLowerCase()
    if (!["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role)) return undefined
    const aria = el.getAttribute("aria-checked")
    return aria === "true" ? true : aria === "false" || aria === null ? false : undefined
  }
  if (toggle) {
    const now = checkedState()
    // Not a checkbox, a mixed one, or a radio button to uncheck: the library says what is wrong.
    if (now === undefined) return { why: "not checkable" }
    if (now === (arg.gesture === "check")) return { done: true }
    if (arg.gesture === "uncheck" && (String(el.type).toLowerCase() === "radio" || el.getAttribute("role") === "radio")) {
      return { why: "radio" }
    }
  }
  const kind = el.localName
  if (click && (kind === "select" || kind === "option" || (kind === "input" && String(el.type).toLowerCase() === "file"))) {
    return { why: "kind" }
  }
  if (!el.checkVisibility({ visibilityProperty: true })) return { why: "hidden" }
  // The library hovers a disabled element (a user can point at one: its tooltip says why it is disabled).
  if (click && (el.matches(":disabled") || el.closest("[aria-disabled=true]") !== null)) return { why: "disabled" }
  for (const a of g.document.getAnimations()) {
    const target = a.effect?.target
    if (a.playState === "running" && target !== undefined && target !== null && target.contains(el)) return { why: "animating" }
  }
  const vv = g.visualViewport
  if (vv !== null && (vv.scale !== 1 || vv.offsetLeft !== 0 || vv.offsetTop !== 0)) return { why: "zoomed" }
  const centre = () => {
    const box = Array.from(el.getClientRects()).find((r) => r.width > 0 && r.height > 0)
    if (box === undefined) return undefined
    const x = box.left + box.width / 2
    const y = box.top + box.height / 2
    return { x, y, inView: x >= 0 && y >= 0 && x < g.innerWidth && y < g.innerHeight }
  }
  /** Whether the element is what the page has at that point (the innermost element there, or inside it). */
  const hitAt = (px: number, py: number) => {
    let hit = g.document.elementFromPoint(px, py)
    while (hit !== null && hit.shadowRoot !== null) {
      const inner = hit.shadowRoot.elementFromPoint(px, py)
      if (inner === null || inner === hit) break
      hit = inner
    }
    for (let n: unknown = hit; n !== null && n !== undefined; n = (n as El).parentNode ?? (n as { host?: unknown }).host) {
      if (n === el) return true
    }
    return false
  }
  let at = centre()
  if (at === undefined) return { why: "no box" }
  let on = at.inView && hitAt(at.x, at.y)
  if (!on) {
    // Outside the viewport, or clipped (a scrolled box) or covered (a sticky header) where it is: scrolled to
    // the middle of the view at once, as the library would first (a smooth scroll is not waited for).
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" })
    at = centre()
    if (at === undefined || !at.inView) return { why: "off screen" }
    on = hitAt(at.x, at.y)
  }
  // In view now: what a scroll into view is for (what covers it is no matter to that).
  if (arg.gesture === "scroll") return { done: true }
  if (!on) return { why: "covered" }
  const { x, y } = at
  // Decided by the first of the gesture's events, for all of them (as the library's own hit check does): a
  // label's click goes on to its control, which may be elsewhere, and that is still this click. A hover's
  // events are those of the pointer arriving (the ones leaving the element it was over go there, rightly).
  const types = click
    ? ["pointerdown", "mousedown", "pointerup", "mouseup", "click", ...(arg.gesture === "dblclick" ? ["dblclick"] : [])]
    : ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove"]
  // Only the gesture's own events, at its point: not those the browser makes where the pointer was (after a
  // scroll or a change of layout it moves the pointer's hover there, with events).
  const ours = (event: unknown) => {
    const e = event as { readonly clientX: number; readonly clientY: number }
    return Math.abs(e.clientX - x) <= 1 && Math.abs(e.clientY - y) <= 1
  }
  check(arg.hitKey, el, types, ours, (r): HitReport => ({
    // A pointer over the element already may get no event from a move to where it is: it is hovering there.
    delivered: r.delivered || (!click && !r.stopped && el.matches(":hover")),
    stopped: r.stopped,
    ...(toggle ? { checked: checkedState() } : {})
  }))
  return { x, y }
}

/**
 * A gesture on a checked ref the quick way: "done"; "declined" (nothing reached the page's listeners: the
 * library acts the usual way); "unchanged": a check or uncheck clicked, and the element's state did not
 * change (a widget that ignored it). A page that does not answer within RESOLVE_MS fails as busy, as a ref
 * check that waits that long (nothing was done).
 */
export const quickPointer = (access: QuickAccess, gesture: PointerGesture) =>
  Effect.gen(function*() {
    const { page, utility } = access
    const own = yield* Effect.promise(() => access.inputSession(page).catch(() => undefined))
    if (own === undefined) return "declined" as const
    const hitKey = `__svcHit_${Math.random().toString(36).slice(2)}`
    const release = () => utility(page, releaseExpression(hitKey)) as Promise<HitReport & { readonly gone?: boolean }> | undefined
    const args: QuickPointerArgs = { ...elementArgs(access), gesture, hitKey }
    const answer = yield* callQuick(access, prepareQuickPointer, args)
    if (answer === "busy") {
      // Should the call still run later, its hit check goes at once after it.
      void release()?.catch(() => undefined)
      return yield* Effect.fail(access.busy())
    }
    if (answer === undefined) return "declined" as const
    if ("why" in answer) return "declined" as const
    if ("done" in answer) return "done" as const
    const at = { x: answer.x, y: answer.y }
    // One burst: the browser keeps their order, and the press does not wait for the move's frame.
    const mouse = (params: Record<string, unknown>) =>
      sendOnPage(own, "Input.dispatchMouseEvent", params).then(() => true, () => false)
    const press = (clickCount: number) => [
      mouse({ type: "mousePressed", ...at, button: "left", buttons: 1, clickCount }),
      mouse({ type: "mouseReleased", ...at, button: "left", buttons: 0, clickCount })
    ]
    const sent = yield* Effect.promise(() =>
      Promise.all([
        mouse({ type: "mouseMoved", ...at }),
        ...(gesture === "hover" ? [] : press(1)),
        ...(gesture === "dblclick" ? press(2) : [])
      ])
    )
    const report = yield* Effect.promise(() => release()?.catch(() => undefined) ?? Promise.resolve(undefined))
    if (report === undefined || report.gone === true) {
      // The document went away under the gesture (a navigation a click started, most likely): it was done if
      // its last event went out.
      return sent[sent.length - 1] === true ? "done" as const : "declined" as const
    }
    // Stopped, or not seen at all (another of svc's checks stopped them: the library then says why).
    if (!report.delivered) return "declined" as const
    if (gesture !== "check" && gesture !== "uncheck") return "done" as const
    return report.checked === (gesture === "check") ? "done" as const : "unchanged" as const
  })

/**
 * A gesture on a ref checked the fast way, without the library's waits where that is safe; else, or where
 * that declined, the library's way (`library`, timed as such then).
 */
export const quickOr = <E, R>(
  target: ActionTarget,
  gesture: PointerGesture,
  action: ActionName,
  library: Effect.Effect<void, E, R>
): Effect.Effect<void, E | BrowserUnavailable | InvalidRequest, R> =>
  target.quick === undefined
    ? library
    : Effect.flatMap(timed("quick")(quickPointer(target.quick, gesture)), (outcome): Effect.Effect<void, E | InvalidRequest, R> =>
      outcome === "done"
        ? Effect.void
        : outcome === "unchanged"
        // Clicked, so not clicked again: a widget that did not take the click would take a second one no better.
        ? new InvalidRequest({
          message: `${subject(action, target.ref, { description: target.description })}: it was clicked and is still ` +
            `${gesture === "check" ? "unchecked" : "checked"}; take a snapshot to see what the page did`
        })
        : timed("library")(library))
