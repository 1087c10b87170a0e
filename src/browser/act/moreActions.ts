import { Effect } from "effect"
import type { CDPSession, Page, Request, Response } from "playwright-core"
import { Conflict, InvalidRequest } from "../../domain/errors.js"
import { bounded, call, run } from "./budgets.js"
import type { ActionTarget } from "./target.js"

// The actions that need no snapshot ref or only read one: moving through the tab's history, reading an
// element's text or a control's value, typing into whatever has focus.

const ACTION_TIMEOUT_MS = 5_000
const HISTORY_TIMEOUT_MS = 20_000
/** After DOMContentLoaded, how long back/forward/reload still let the `load` event come. */
const LOAD_GRACE_MS = 3_000
/** text / value: the most characters answered; longer ones end with a marker saying how many there were. */
export const READ_LIMIT = 20_000
const SLOW_KEY_DELAY_MS = 50
const MAX_SLOW_TEXT = 1_000

export interface PageMove {
  readonly url: string
  readonly title: string
  readonly status?: number
}

/** A selected option of a select element. */
export interface SelectedOption {
  readonly value: string
  readonly label: string
}

/** What `value` answers: a text control's value, a checkbox's or radio's checked state, a select's selected options. */
export type ControlValue = string | boolean | ReadonlyArray<SelectedOption>

type InPageValue =
  | { readonly kind: "text"; readonly value: string }
  | { readonly kind: "checked"; readonly value: boolean }
  | { readonly kind: "selected"; readonly value: ReadonlyArray<SelectedOption> }
  | { readonly kind: "none"; readonly tag: string }

/** The parts of a DOM element the in-page functions read (the project compiles without the DOM types). */
interface PageElement {
  readonly tagName: string
  readonly type?: string
  readonly checked?: boolean
  readonly value?: string
  readonly multiple?: boolean
  readonly selectedOptions?: ArrayLike<{ readonly value: string; readonly label: string }>
  readonly isContentEditable?: boolean
  readonly innerText?: string
  readonly shadowRoot?: { readonly activeElement: PageElement | null } | null
  getAttribute(name: string): string | null
}

interface PageDocument {
  readonly activeElement: PageElement | null
  readonly body: PageElement | null
  readonly documentElement: PageElement & { readonly clientWidth: number; readonly clientHeight: number }
}

/** Runs in the page: the element's current value, read the way a user sees it. Self-contained. */
const readControlValue = (el: PageElement): InPageValue => {
  const tag = el.tagName.toLowerCase()
  if (tag === "input") {
    if (el.type === "checkbox" || el.type === "radio") return { kind: "checked", value: el.checked === true }
    return { kind: "text", value: el.value ?? "" }
  }
  if (tag === "textarea") return { kind: "text", value: el.value ?? "" }
  if (tag === "select") {
    return {
      kind: "selected",
      value: Array.from(el.selectedOptions ?? []).map((o) => ({ value: o.value, label: o.label }))
    }
  }
  const checked = el.getAttribute("aria-checked") ?? el.getAttribute("aria-pressed")
  if (checked === "true" || checked === "false" || checked === "mixed") return { kind: "checked", value: checked === "true" }
  if (el.isContentEditable === true) return { kind: "text", value: el.innerText ?? "" }
  const ariaValue = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow")
  if (ariaValue !== null) return { kind: "text", value: ariaValue }
  return { kind: "none", tag }
}

/** Runs in the page: is anything but the page itself focused? Looks through shadow roots. */
const hasFocus = (): boolean => {
  const doc = (globalThis as unknown as { document: PageDocument }).document
  let active = doc.activeElement
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement
  return active !== null && active !== doc.body && active !== doc.documentElement
}

/** A long text cut to the limit, ending with a marker that says how much there was. */
export const capText = (text: string, limit = READ_LIMIT): string =>
  text.length <= limit
    ? text
    : `${text.slice(0, limit)}… [truncated: ${limit} of ${text.length} characters shown]`

interface HistoryEntry {
  readonly id: number
  readonly url: string
}

/**
 * One CDP session per page for the history steps, kept for the page's life: detaching a page's session
 * ends the emulation it carries (an offline tab came back online after `back`), so none is detached.
 */
const historySessions = new WeakMap<Page, Promise<CDPSession>>()

const historySession = (page: Page): Promise<CDPSession> => {
  let session = historySessions.get(page)
  if (session === undefined) {
    session = page.context().newCDPSession(page)
    historySessions.set(page, session)
    session.catch(() => historySessions.delete(page))
  }
  return session
}

/** A command over the page's history session; a session gone (the connection was re-made) is made again once. */
const withHistorySession = async <A>(page: Page, use: (session: CDPSession) => Promise<A>): Promise<A> => {
  try {
    return await use(await historySession(page))
  } catch (e) {
    if (!/detached|closed|Session/i.test(String(e)) || page.isClosed()) throw e
    historySessions.delete(page)
    return await use(await historySession(page))
  }
}

/** The tab's current URL and the history entry one step back or forward, if there is one. */
const historyEntry = async (page: Page, action: "back" | "forward") => {
  const history = await withHistorySession(page, (session) => session.send("Page.getNavigationHistory"))
  const to: HistoryEntry | undefined = history.entries[history.currentIndex + (action === "back" ? -1 : 1)]
  return { now: history.entries[history.currentIndex]?.url ?? page.url(), to }
}

/**
 * Goes to a history entry and resolves once its document is there (committed, or restored from the
 * back/forward cache), with the response of its load when there was one.
 */
const goToEntry = async (page: Page, entryId: number, url: string, timeout: number): Promise<Response | null> => {
  const main = page.mainFrame()
  let response: Response | null = null
  let failure: string | undefined
  const onResponse = (r: Response) => {
    if (r.frame() === main && r.request().isNavigationRequest()) response = r
  }
  const onFailed = (r: Request) => {
    if (r.frame() === main && r.isNavigationRequest()) failure = r.failure()?.errorText
  }
  page.on("response", onResponse)
  page.on("requestfailed", onFailed)
  try {
    const navigated = page.waitForEvent("framenavigated", { predicate: (f) => f === main, timeout })
    navigated.catch(() => undefined)
    await withHistorySession(page, (session) => session.send("Page.navigateToHistoryEntry", { entryId }))
    await navigated
    // The entry's page could not be loaded again: the tab shows the browser's error page, as a navigate there would.
    if (failure !== undefined && page.url().startsWith("chrome-error:")) throw new Error(`${failure} at ${url}`)
    // No response: the page came back from the back/forward cache, whole, and fires no load events.
    if (response !== null) await page.waitForLoadState("domcontentloaded", { timeout })
    return response
  } finally {
    page.off("response", onResponse)
    page.off("requestfailed", onFailed)
  }
}

export const makeMoreActions = () => {
  /** Leaves the page as navigate does: DOMContentLoaded waited for, then `load` for a short grace. */
  const move = (
    page: Page,
    action: "back" | "forward" | "reload",
    timeoutMs: number | undefined
  ) =>
    run({ action, timeoutMs, defaultMs: HISTORY_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        let response: Response | null = null
        if (action === "reload") {
          response = yield* steps.once((timeout) => page.reload({ waitUntil: "domcontentloaded", timeout }))
        } else {
          // Over the history entries rather than page.goBack: a page Chromium restores from its back/forward
          // cache fires no load events, and goBack would wait for them until its timeout.
          const entry = yield* steps.once((timeout) => bounded(historyEntry(page, action), timeout, "Page.getNavigationHistory"))
          if (entry.to === undefined) {
            return yield* new Conflict({
              message: `${action}: this tab has no ${action === "back" ? "earlier" : "later"} page in its history ` +
                `(it stays at ${entry.now})`
            })
          }
          const to = entry.to
          response = yield* steps.once((timeout) => goToEntry(page, to.id, to.url, timeout), { context: { url: to.url } })
        }
        if (response !== null) {
          const grace = Math.min(LOAD_GRACE_MS, yield* steps.remaining)
          yield* Effect.ignore(call(() => page.waitForLoadState("load", { timeout: grace })))
        }
        const title = yield* Effect.orElseSucceed(call(() => page.title()), () => "")
        const result: PageMove = { url: page.url(), title, ...(response !== null ? { status: response.status() } : {}) }
        return result
      }))

  const back = (page: Page, options: { readonly timeoutMs?: number | undefined } = {}) => move(page, "back", options.timeoutMs)
  const forward = (page: Page, options: { readonly timeoutMs?: number | undefined } = {}) =>
    move(page, "forward", options.timeoutMs)
  const reload = (page: Page, options: { readonly timeoutMs?: number | undefined } = {}) =>
    move(page, "reload", options.timeoutMs)

  /** The element's visible text (as `innerText` renders it), capped. */
  const text = (_page: Page, target: ActionTarget, options: { readonly timeoutMs?: number | undefined } = {}) =>
    run({ action: "text", target, timeoutMs: options.timeoutMs, defaultMs: ACTION_TIMEOUT_MS }, (steps) =>
      Effect.map(steps.idempotent((timeout) => target.locator.innerText({ timeout })), (t) => capText(t)))

  const value = (_page: Page, target: ActionTarget, options: { readonly timeoutMs?: number | undefined } = {}) =>
    run({ action: "value", target, timeoutMs: options.timeoutMs, defaultMs: ACTION_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        const read = yield* steps.idempotent((timeout) => target.locator.evaluate(readControlValue, undefined, { timeout }))
        switch (read.kind) {
          case "none":
            return yield* new InvalidRequest({
              message: `value ${target.ref}${target.description !== "" ? ` (${target.description})` : ""}: ` +
                `a <${read.tag}> is not a form control and has no value; read its text with \`svc browser text ${target.ref}\``
            })
          case "text":
            return capText(read.value) as ControlValue
          case "checked":
          case "selected":
            return read.value as ControlValue
        }
      }))

  /** Text into the focused element, at its caret (the field is not cleared first). */
  const typeFocused = (
    page: Page,
    input: string,
    options: {
      readonly submit?: boolean | undefined
      readonly slowly?: boolean | undefined
      readonly timeoutMs?: number | undefined
    } = {}
  ) =>
    Effect.gen(function*() {
      const slowly = options.slowly === true
      if (slowly && input.length > MAX_SLOW_TEXT) {
        return yield* new InvalidRequest({
          message: `type --focused: --slowly types at most ${MAX_SLOW_TEXT} characters (got ${input.length}); ` +
            "leave --slowly out to insert long text at once"
        })
      }
      return yield* run({
        action: "type",
        timeoutMs: options.timeoutMs,
        defaultMs: ACTION_TIMEOUT_MS,
        extraMs: slowly ? input.length * SLOW_KEY_DELAY_MS : 0
      }, (steps) =>
        Effect.gen(function*() {
          const focused = yield* steps.once((timeout) => bounded(page.evaluate(hasFocus), timeout, "page.evaluate"))
          if (!focused) {
            return yield* new Conflict({
              message: "type --focused: nothing on the page has focus, so the keys would go nowhere; focus a field " +
                "first (`svc browser click <ref>`), or type into it by its ref (`svc browser type <ref> <text>`)"
            })
          }
          yield* steps.once((timeout) =>
            slowly
              ? page.keyboard.type(input, { delay: SLOW_KEY_DELAY_MS }).then(() => undefined)
              : bounded(page.keyboard.insertText(input), timeout, "keyboard.insertText")
          )
          if (options.submit === true) {
            yield* steps.once((timeout) => bounded(page.keyboard.press("Enter"), timeout, "keyboard.press"))
          }
        }))
    })

  return { back, forward, reload, text, value, typeFocused } as const
}
