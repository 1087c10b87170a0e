import { Effect, Either } from "effect"
import type { Locator, Page, Response } from "playwright-core"
import { InternalError, InvalidRequest } from "../../domain/errors.js"
import { timed } from "../../platform/serverTiming.js"
import { imageSize, type ImageType } from "../cdp/png.js"
import { JPEG_QUALITY } from "../cdp/screenshot.js"
import { bounded, call, run, timeoutError } from "./budgets.js"
import { errorParts, type PlaywrightFailure } from "./failures.js"
import { becameDownload } from "../pages/promises.js"
import { checkViewport, normaliseKey, normaliseNavigationUrl, urlMatcher } from "./inputs.js"
import {
  type AgentAnswer,
  type AgentCode,
  drawOutline,
  type ElementBox,
  runAgentCode,
  selectOptions,
  tagName,
  waitCondition
} from "./inPage.js"
import type { DescribeContext } from "./messages.js"
import { makeMoreActions } from "./moreActions.js"
import { GUARD_ATTRIBUTE } from "./refIdentity.js"
import { scroll } from "./scroll.js"
import { clickAt, dragBetween, mouseButton, moveTo } from "./pointer.js"
import { drop } from "./drop.js"
import { makeRunawayGuard } from "./runaway.js"
import type { ActionTarget } from "./target.js"
import { quickOr } from "./quickPointer.js"
import { markOf } from "./quickAccess.js"
import { selectQuickOr } from "./quickSelect.js"
import { typeQuickOr } from "./quickType.js"

// Actions on a playwright page and on targets the Refs module has already resolved. Every call is bounded
// by a timeout: an action waits up to it for its element to be visible, enabled, still and not covered, and
// only then says which of these it is not, naming the ref and what to do next. An element gone from the page
// is answered within about half a second. A script that runs past its timeout is stopped, so the tab answers
// the next request.

/** How long an action on an element waits for it to become actionable (`--timeout` changes it). */
export const DEFAULT_ACTION_TIMEOUT_MS = 5_000
const DEFAULT_EVALUATE_TIMEOUT_MS = 8_000
const DEFAULT_NAVIGATE_TIMEOUT_MS = 20_000
const DEFAULT_WAIT_TIMEOUT_MS = 20_000
const DEFAULT_PDF_TIMEOUT_MS = 30_000
const MAX_WAIT_TIME_MS = 60_000
/** After DOMContentLoaded, how long navigate still lets the `load` event come. */
const LOAD_GRACE_MS = 3_000
const EVALUATE_RESULT_LIMIT = 100_000
const HIGHLIGHT_MS = 2_500
export const HIGHLIGHT_COLOR = "rgb(255, 0, 170)"
/** `type --slowly`: the pause between keys, and the most characters typed that way. */
const SLOW_KEY_DELAY_MS = 50
const MAX_SLOW_TEXT = 1_000
/** drag: pointer moves between the start and the end. */
const DRAG_STEPS = 5
/** wait --enabled: how often the element's state is read again. */
const ENABLED_POLL_MS = 100

export interface TimeoutOption {
  readonly timeoutMs?: number | undefined
}

export interface ClickOptions extends TimeoutOption {
  readonly double?: boolean | undefined
  readonly button?: "left" | "right" | "middle" | undefined
  readonly modifiers?: ReadonlyArray<"Alt" | "Control" | "ControlOrMeta" | "Meta" | "Shift"> | undefined
}

export interface TypeOptions extends TimeoutOption {
  /** Press Enter afterwards. */
  readonly submit?: boolean | undefined
  /** Key by key (for pages that react to each key) instead of setting the value at once. */
  readonly slowly?: boolean | undefined
}

export interface WaitOptions extends TimeoutOption {
  /** A CSS selector: wait until an element it matches is visible. */
  readonly selector?: string | undefined
  /** A resolved ref: wait until its element is visible. */
  readonly target?: ActionTarget | undefined
  /** With a selector or a ref: wait until the element is enabled too. */
  readonly enabled?: boolean | undefined
  readonly text?: string | undefined
  readonly textGone?: string | undefined
  /** A URL glob (`**\/done`); a plain fragment without wildcards matches as a substring. */
  readonly url?: string | undefined
  readonly load?: "load" | "domcontentloaded" | "networkidle" | undefined
  /** JavaScript: an expression, or a function, whose value must become truthy. */
  readonly fn?: string | undefined
  /** A plain pause first, in milliseconds. */
  readonly timeMs?: number | undefined
}

export type FillFieldType = "textbox" | "checkbox" | "radio" | "combobox" | "slider"

export interface FillField {
  readonly target: ActionTarget
  readonly type: FillFieldType
  readonly value: string | boolean | number
}

export interface NavigateResult {
  readonly url: string
  readonly title: string
  readonly status?: number
  /** The URL's answer was a file: the browser downloads it and the tab stays where it was. */
  readonly download?: true
}

export interface ElementScreenshot {
  readonly image: Uint8Array
  readonly width: number
  readonly height: number
}

export interface HighlightResult {
  readonly durationMs: number
  readonly box: ElementBox
}

const fieldValue = (field: FillField): Either.Either<string | boolean, InvalidRequest> => {
  const { type, value } = field
  const bad = (expected: string) =>
    Either.left(
      new InvalidRequest({
        message: `fill ${field.target.ref}: a ${type} takes ${expected} (got ${JSON.stringify(value)})`
      })
    )
  switch (type) {
    case "textbox":
    case "combobox":
      return typeof value === "boolean" ? bad("text") : Either.right(String(value))
    case "slider":
      return typeof value === "number" || (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
        ? Either.right(String(value).trim())
        : bad("a number")
    case "checkbox":
    case "radio": {
      const b = value === true || value === "true" ? true : value === false || value === "false" ? false : undefined
      if (b === undefined) return bad("true or false")
      if (type === "radio" && !b) {
        return Either.left(
          new InvalidRequest({
            message: `fill ${field.target.ref}: a radio button cannot be unchecked; check another option of its group`
          })
        )
      }
      return Either.right(b)
    }
  }
}

/**
 * `page.goto`, leaving the page settled: a failed load is answered before Chromium commits its error page,
 * and that late commit would interrupt the next navigation, so it is waited for; a navigation interrupted by
 * such a late commit is tried once more.
 */
const gotoSettled = async (page: Page, url: string, timeout: number): Promise<Response | null | "download"> => {
  const start = Date.now()
  const go = (ms: number) => page.goto(url, { waitUntil: "domcontentloaded", timeout: ms })
  try {
    return await go(timeout)
  } catch (e) {
    const message = errorParts(e).message
    if (becameDownload(message)) return "download"
    if (/net::ERR_/.test(message)) {
      await page.waitForURL((u) => u.protocol === "chrome-error:", { timeout: 1_000, waitUntil: "commit" }).catch(() => undefined)
      throw e
    }
    const left = timeout - (Date.now() - start)
    if (!/interrupted by another navigation/.test(message) || left < 100) throw e
    await page.waitForLoadState("domcontentloaded", { timeout: Math.min(1_000, left) }).catch(() => undefined)
    return await go(Math.max(1, timeout - (Date.now() - start)))
  }
}

/** Resolves once the locator's element is enabled (read again every 100 ms); a timeout error if it is not in time. */
const untilEnabled = async (locator: Locator, timeout: number): Promise<void> => {
  const deadline = Date.now() + timeout
  for (;;) {
    if (await locator.isEnabled({ timeout: Math.max(1, deadline - Date.now()) })) return
    const left = deadline - Date.now()
    if (left <= 0) throw timeoutError("locator.isEnabled", timeout)
    await new Promise((resolve) => setTimeout(resolve, Math.min(ENABLED_POLL_MS, left)))
  }
}

const makeActions = () => {
  const runaway = makeRunawayGuard()
  /** Step options for a script the agent gave: should it time out while still running, it is stopped. */
  const script = (page: Page, context: DescribeContext = {}) => ({
    context,
    explain: (f: PlaywrightFailure) =>
      f.timedOut ? Effect.map(runaway.settle(page), (r): DescribeContext => ({ runaway: r })) : Effect.succeed({})
  })

  /** `titleOf`: how to read the page's title (default: from the page). */
  const navigate = (
    page: Page,
    url: string,
    options: TimeoutOption & { readonly titleOf?: (page: Page) => Effect.Effect<string> } = {}
  ) =>
    Effect.gen(function*() {
      const href = yield* normaliseNavigationUrl(url)
      return yield* run({ action: "navigate", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_NAVIGATE_TIMEOUT_MS }, (steps) =>
        Effect.gen(function*() {
          const response = yield* steps.once((timeout) => gotoSettled(page, href, timeout), {
            context: { url: href }
          }).pipe(timed("goto"))
          // The load event usually follows; a page that keeps loading (ads, long polls) is not waited for.
          // A download leaves the tab's page as it was.
          if (response !== "download") {
            const grace = Math.min(LOAD_GRACE_MS, yield* steps.remaining)
            yield* Effect.ignore(call(() => page.waitForLoadState("load", { timeout: grace }))).pipe(timed("load"))
          }
          const title = yield* (options.titleOf !== undefined
            ? options.titleOf(page)
            : Effect.orElseSucceed(call(() => page.title()), () => "")).pipe(timed("title"))
          const result: NavigateResult = {
            url: page.url(),
            title,
            ...(response === "download" ? { download: true } : response !== null ? { status: response.status() } : {})
          }
          return result
        }))
    })

  const resize = (page: Page, width: number, height: number, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      const size = yield* checkViewport(width, height)
      return yield* run({ action: "resize", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
        Effect.as(steps.once((timeout) => bounded(page.setViewportSize(size), timeout, "page.setViewportSize")), size))
    })

  const click = (_page: Page, target: ActionTarget, options: ClickOptions = {}) =>
    run({ action: "click", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) => {
      const pointer = {
        ...(options.button !== undefined ? { button: options.button } : {}),
        ...(options.modifiers !== undefined ? { modifiers: [...options.modifiers] } : {})
      }
      const library = steps.pointer((timeout) =>
        options.double === true
          ? target.locator.dblclick({ ...pointer, timeout })
          : target.locator.click({ ...pointer, timeout })
      )
      // A plain left click (or double click) on a ref checked the fast way goes without the library's waits when that is safe.
      const plain = (options.button ?? "left") === "left" && (options.modifiers ?? []).length === 0
      return plain ? quickOr(target, options.double === true ? "dblclick" : "click", "click", library) : library
    })

  const type = (_page: Page, target: ActionTarget, text: string, options: TypeOptions = {}) =>
    Effect.gen(function*() {
      const slowly = options.slowly === true
      if (slowly && text.length > MAX_SLOW_TEXT) {
        return yield* new InvalidRequest({
          message: `type ${target.ref}: --slowly types at most ${MAX_SLOW_TEXT} characters (got ${text.length}); ` +
            "leave --slowly out to set long text at once"
        })
      }
      return yield* run({
        action: "type",
        target,
        timeoutMs: options.timeoutMs,
        defaultMs: DEFAULT_ACTION_TIMEOUT_MS,
        extraMs: slowly ? text.length * SLOW_KEY_DELAY_MS : 0
      }, (steps) =>
        Effect.gen(function*() {
          if (slowly) {
            // Clearing first checks that the field is there, visible and editable, quickly and harmlessly.
            yield* steps.idempotent((timeout) => target.locator.fill("", { timeout }))
            yield* steps.once((timeout) => target.locator.pressSequentially(text, { delay: SLOW_KEY_DELAY_MS, timeout }))
          } else {
            yield* typeQuickOr(target, text, steps.idempotent((timeout) => target.locator.fill(text, { timeout })))
          }
          if (options.submit === true) yield* steps.once((timeout) => target.locator.press("Enter", { timeout }))
        }))
    })

  const press = (page: Page, key: string, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      const name = normaliseKey(key.trim() === "" ? key : key.trim())
      if (name === "") return yield* new InvalidRequest({ message: "press: give a key, e.g. `svc browser press Enter`" })
      return yield* run({ action: "press", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
        steps.once((timeout) => bounded(page.keyboard.press(name), timeout, "keyboard.press"), { context: { key: name } }))
    })

  const hover = (_page: Page, target: ActionTarget, options: TimeoutOption = {}) =>
    run({ action: "hover", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      quickOr(target, "hover", "hover", steps.idempotent((timeout) => target.locator.hover({ timeout }))))

  const scrollIntoView = (_page: Page, target: ActionTarget, options: TimeoutOption = {}) =>
    run({ action: "scrollIntoView", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      quickOr(target, "scroll", "scrollIntoView", steps.idempotent((timeout) => target.locator.scrollIntoViewIfNeeded({ timeout }))))

  const drag = (page: Page, start: ActionTarget, end: ActionTarget, options: TimeoutOption = {}) =>
    run({ action: "drag", target: start, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        // Chromium starts a drag only in the tab in front (a background tab's drag never begins).
        yield* steps.once((timeout) => bounded(page.bringToFront(), timeout, "page.bringToFront"))
        // Trial runs find which end is hidden or covered, so the message names the right ref.
        yield* steps.idempotent((timeout) => start.locator.hover({ trial: true, timeout }), { context: { part: "start" } })
        yield* steps.idempotent((timeout) => end.locator.hover({ trial: true, timeout }), {
          target: end,
          context: { part: "end" }
        })
        // A few intermediate moves: Chromium starts a drag only once the pointer has travelled with the button down.
        yield* steps.once((timeout) => start.locator.dragTo(end.locator, { timeout, steps: DRAG_STEPS }), { context: { part: "start" } })
      }))

  const readOptions = (target: ActionTarget) =>
    Effect.orElseSucceed(
      call(() => target.locator.evaluate(selectOptions, undefined, { timeout: 1_000 })),
      () => []
    ).pipe(Effect.map((options): DescribeContext => ({ options })))

  /**
   * A select without the option asked for is waited on only while its options change (a list still being
   * filled in): once they read the same after two attempts (about 1.5 s), the answer lists them, rather than
   * waiting out the whole timeout for an option the agent mistyped.
   */
  const optionSteps = (target: ActionTarget, values: ReadonlyArray<string>) => {
    let last: string | undefined
    return {
      context: { values },
      explain: (f: PlaywrightFailure) => f.kind === "optionsNotFound" ? readOptions(target) : Effect.succeed({}),
      keepWaiting: (f: PlaywrightFailure) =>
        f.kind !== "optionsNotFound" ? Effect.succeed(true) : Effect.map(readOptions(target), ({ options }) => {
          const now = JSON.stringify(options)
          const changing = now !== last
          last = now
          return changing
        })
    }
  }

  const select = (_page: Page, target: ActionTarget, values: ReadonlyArray<string>, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      if (values.length === 0) {
        return yield* new InvalidRequest({
          message: `select ${target.ref}: give at least one option (its value or label), e.g. \`svc browser select ${target.ref} Blue\``
        })
      }
      return yield* run({ action: "select", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
        Effect.map(
          selectQuickOr(
            target,
            values,
            steps.idempotent((timeout) => target.locator.selectOption([...values], { timeout }), optionSteps(target, values))
          ),
          (selected) => ({ selected })
        ))
    })

  const fillField = (field: FillField, options: TimeoutOption) =>
    Effect.gen(function*() {
      const value = yield* fieldValue(field)
      const { target } = field
      return yield* run({ action: "fill", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
        Effect.gen(function*() {
          switch (field.type) {
            case "checkbox":
            case "radio":
              return yield* quickOr(
                target,
                value === true ? "check" : "uncheck",
                "fill",
                steps.idempotent((timeout) => target.locator.setChecked(value === true, { timeout }))
              )
            case "combobox":
              // A select ready for it at once; else its tag says how.
              return yield* Effect.asVoid(selectQuickOr(
                target,
                [String(value)],
                Effect.gen(function*() {
                  const tag = yield* steps.idempotent((timeout) => target.locator.evaluate(tagName, undefined, { timeout }))
                  if (tag === "SELECT") {
                    return yield* steps.idempotent(
                      (timeout) => target.locator.selectOption(String(value), { timeout }),
                      optionSteps(target, [String(value)])
                    )
                  }
                  yield* steps.idempotent((timeout) => target.locator.fill(String(value), { timeout }))
                  return []
                })
              ))
            case "textbox":
              return yield* typeQuickOr(
                target,
                String(value),
                steps.idempotent((timeout) => target.locator.fill(String(value), { timeout }))
              )
            case "slider":
              return yield* steps.idempotent((timeout) => target.locator.fill(String(value), { timeout }))
          }
        }))
    })

  const fill = (_page: Page, fields: ReadonlyArray<FillField>, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      if (fields.length === 0) {
        return yield* new InvalidRequest({
          message: "fill: give at least one field, e.g. `--fields '[{\"ref\":\"e3\",\"type\":\"textbox\",\"value\":\"Ada\"}]'`"
        })
      }
      // One field after another, in the order given: forms react to earlier fields.
      for (const field of fields) yield* fillField(field, options)
      return { filled: fields.length }
    })

  const wait = (page: Page, options: WaitOptions) =>
    Effect.gen(function*() {
      const conditions = [options.selector, options.target, options.text, options.textGone, options.url, options.load, options.fn]
        .filter((c) => c !== undefined)
      if (options.enabled === true && options.selector === undefined && options.target === undefined) {
        return yield* new InvalidRequest({
          message: "wait: --enabled needs the element to wait for: a ref from a snapshot or a CSS selector, " +
            "e.g. `svc browser wait 12 --enabled`"
        })
      }
      if (conditions.length === 0 && options.timeMs === undefined) {
        return yield* new InvalidRequest({
          message: "wait: say what to wait for: a ref or selector, --text, --text-gone, --url, --load, --fn or --time, " +
            "e.g. `svc browser wait --text Done`"
        })
      }
      if (options.selector !== undefined && options.target !== undefined) {
        return yield* new InvalidRequest({ message: "wait: give a ref or a CSS selector, not both" })
      }
      if (options.timeMs !== undefined) {
        if (!Number.isInteger(options.timeMs) || options.timeMs < 0 || options.timeMs > MAX_WAIT_TIME_MS) {
          return yield* new InvalidRequest({
            message: `wait: --time must be whole milliseconds from 0 to ${MAX_WAIT_TIME_MS} (got ${options.timeMs}); ` +
              "prefer waiting for what you expect (--text, --url, a selector)"
          })
        }
        yield* Effect.sleep(options.timeMs)
      }
      if (conditions.length === 0) return
      return yield* run({ action: "wait", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_WAIT_TIMEOUT_MS }, (steps) =>
        Effect.gen(function*() {
          if (options.load !== undefined) {
            const load = options.load
            yield* steps.once((timeout) => page.waitForLoadState(load, { timeout }), {
              context: { waitedFor: `the page to reach the "${load}" state` }
            })
          }
          if (options.url !== undefined) {
            const matcher = urlMatcher(options.url)
            yield* steps.once((timeout) => page.waitForURL(matcher, { timeout, waitUntil: "domcontentloaded" }), {
              context: { waitedFor: `the URL to match ${JSON.stringify(options.url)} (now ${page.url()})` }
            })
          }
          const { selector, target } = options
          if (selector !== undefined || target !== undefined) {
            const element = target?.locator ?? page.locator(selector!).filter({ visible: true }).first()
            const what = target !== undefined
              ? `${target.ref}${target.description !== "" && target.description !== target.ref ? ` (${target.description})` : ""}`
              : `an element matching ${JSON.stringify(selector)}`
            yield* steps.once((timeout) => element.waitFor({ state: "visible", timeout }), {
              context: { selector, waitedFor: `${what} to be visible` }
            })
            if (options.enabled === true) {
              yield* steps.once((timeout) => untilEnabled(element, timeout), {
                context: { selector, waitedFor: `${what} to be enabled` }
              })
            }
          }
          if (options.text !== undefined) {
            const text = options.text
            yield* steps.once(
              (timeout) => page.getByText(text).filter({ visible: true }).first().waitFor({ state: "visible", timeout }),
              { context: { waitedFor: `the text ${JSON.stringify(text)} to appear` } }
            )
          }
          if (options.textGone !== undefined) {
            const text = options.textGone
            yield* steps.once(
              (timeout) => page.getByText(text).filter({ visible: true }).first().waitFor({ state: "hidden", timeout }),
              { context: { waitedFor: `the text ${JSON.stringify(text)} to disappear` } }
            )
          }
          if (options.fn !== undefined) {
            const source = options.fn
            yield* runaway.arm(page)
            const slot = Math.random().toString(36).slice(2)
            const handle = yield* steps.once(
              (timeout) =>
                bounded(page.waitForFunction(waitCondition, { source, slot }, { timeout }), timeout, "page.waitForFunction"),
              script(page, { waitedFor: "the function to return a truthy value" })
            ).pipe(Effect.ensuring(Effect.ignore(call(() => page.evaluate(waitCondition, { source: "", slot, end: true })))))
            yield* Effect.ignore(call(() => handle.dispose()))
          }
        }))
    })

  const evaluate = (page: Page, fn: string, target?: ActionTarget, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      if (fn.trim() === "") {
        return yield* new InvalidRequest({ message: "evaluate: give a function, e.g. `--fn '() => document.title'`" })
      }
      return yield* run({ action: "evaluate", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_EVALUATE_TIMEOUT_MS }, (steps) =>
        Effect.gen(function*() {
          yield* runaway.arm(page)
          const code: AgentCode = { source: fn, unmark: GUARD_ATTRIBUTE, limit: EVALUATE_RESULT_LIMIT }
          // One call runs the code and answers its result as capped JSON text (serialising runs the page's own
          // toJSON methods and getters, which can loop too: the same runaway guard covers both). An element the
          // ref's check marked is found by its mark in that same call; should the mark be gone (nothing ran
          // then), the element is looked for as for any ref.
          const marked = markOf(target?.quick)
          const onMarked = marked === undefined ? undefined : yield* steps.once((timeout) =>
            bounded(page.evaluate(runAgentCode, { ...code, marked }), timeout, "page.evaluate"), script(page)).pipe(
              timed("run")
            )
          let out: AgentAnswer
          if (onMarked !== undefined && onMarked.missing !== true) {
            out = onMarked
          } else if (target !== undefined) {
            const element = yield* steps.idempotent((timeout) => target.locator.elementHandle({ timeout })).pipe(timed("element"))
            out = yield* steps.once((timeout) =>
              // The handle is let go without waiting for the browser to say so.
              bounded(element.evaluate(runAgentCode, code), timeout, "elementHandle.evaluate")
                .finally(() => void element.dispose().catch(() => undefined)), script(page)).pipe(timed("run"))
          } else {
            out = yield* steps.once((timeout) => bounded(page.evaluate(runAgentCode, code), timeout, "page.evaluate"), script(page)).pipe(
              timed("run")
            )
          }
          if (out.error !== undefined) {
            return `[the result cannot be shown as JSON: ${out.error}]`
          }
          // undefined has no JSON: the answer leaves `result` out (null is a function's own null).
          if (out.json === undefined) return undefined
          if (out.total > EVALUATE_RESULT_LIMIT) {
            return `${out.json}… [truncated: ${EVALUATE_RESULT_LIMIT} of ${out.total} characters of JSON shown; ` +
              "return less, e.g. a count or a slice]"
          }
          return JSON.parse(out.json) as unknown
        }))
    })

  const highlight = (_page: Page, target: ActionTarget, options: TimeoutOption & { readonly durationMs?: number | undefined } = {}) =>
    run({ action: "highlight", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        const ms = options.durationMs ?? HIGHLIGHT_MS
        yield* steps.idempotent((timeout) => target.locator.scrollIntoViewIfNeeded({ timeout }))
        const box = yield* steps.once((timeout) => target.locator.evaluate(drawOutline, { ms, color: HIGHLIGHT_COLOR }, { timeout }))
        const result: HighlightResult = { durationMs: ms, box }
        return result
      }))

  const elementScreenshot = (_page: Page, target: ActionTarget, options: TimeoutOption & { readonly type?: ImageType } = {}) =>
    run({ action: "screenshot", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        const type = options.type ?? "png"
        yield* steps.idempotent((timeout) => target.locator.scrollIntoViewIfNeeded({ timeout }))
        const image = yield* steps.idempotent((timeout) =>
          target.locator.screenshot({ type, scale: "css", timeout, ...(type === "jpeg" ? { quality: JPEG_QUALITY } : {}) })
        )
        const size = imageSize(type, image)
        if (size === undefined) {
          return yield* new InternalError({
            message: `screenshot ${target.ref}: the browser returned an image that is not a ${type.toUpperCase()}`
          })
        }
        const shot: ElementScreenshot = { image, width: size.width, height: size.height }
        return shot
      }))

  const pdf = (page: Page, options: TimeoutOption = {}) =>
    run({ action: "pdf", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_PDF_TIMEOUT_MS }, (steps) =>
      Effect.map(
        steps.once((timeout) => bounded(page.pdf({ printBackground: true }), timeout, "page.pdf")),
        (bytes): Uint8Array => bytes
      ))

  return {
    navigate,
    resize,
    click,
    type,
    press,
    hover,
    scrollIntoView,
    drag,
    select,
    fill,
    wait,
    evaluate,
    highlight,
    elementScreenshot,
    pdf,
    scroll,
    clickAt,
    moveTo,
    mouseButton,
    dragBetween,
    drop,
    ...makeMoreActions()
  } as const
}

/** Navigation, input and page inspection on playwright pages and resolved refs. Needs nothing. */
export class Actions extends Effect.Service<Actions>()("svc/Actions", {
  sync: makeActions
}) {}
