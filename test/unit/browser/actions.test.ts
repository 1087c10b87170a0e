import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, TestClock } from "effect"
import type { Locator, Page } from "playwright-core"
import { Actions, DEFAULT_ACTION_TIMEOUT_MS } from "../../../src/browser/act/Actions.js"
import { PROBE_MS } from "../../../src/browser/act/budgets.js"
import { classifyPlaywrightError, worthWaiting } from "../../../src/browser/act/failures.js"
import { checkTimeout, checkViewport, normaliseKey, normaliseNavigationUrl, urlMatcher } from "../../../src/browser/act/inputs.js"
import { type ActionError, describeActionError, formatDuration } from "../../../src/browser/act/messages.js"
import type { ActionTarget } from "../../../src/browser/act/target.js"

// Playwright 1.65 errors as they arrive (captured from real calls against Chromium 156): the message, the
// call log with its ANSI dimming, and the error's name.

const dim = (line: string) => `\u001b[2m${line}\u001b[22m`
const pwError = (message: string, name = "Error") => Object.assign(new Error(message), { name })
const timeoutError = (api: string, ms: number, log: ReadonlyArray<string>) =>
  pwError(`${api}: Timeout ${ms}ms exceeded.\nCall log:\n${log.map(dim).join("\n")}\n`, "TimeoutError")

const HIDDEN = timeoutError("locator.click", 1500, [
  "  - waiting for locator('#h')",
  "    - locator resolved to <button id=\"h\">Hidden</button>",
  "  - attempting click action",
  "    2 × waiting for element to be visible, enabled and stable",
  "      - element is not visible",
  "    - retrying click action",
  "    - waiting 20ms",
  "    2 × waiting for element to be visible, enabled and stable",
  "      - element is not visible",
  "    - retrying click action",
  "      - waiting 100ms"
])

const COVERED = timeoutError("locator.click", 1500, [
  "  - waiting for locator('#cov')",
  "    - locator resolved to <button id=\"cov\">Covered</button>",
  "  - attempting click action",
  "    2 × waiting for element to be visible, enabled and stable",
  "      - element is visible, enabled and stable",
  "      - scrolling into view if needed",
  "      - done scrolling",
  "      - <div id=\"overlay\" class=\"modal-backdrop\"></div> intercepts pointer events",
  "    - retrying click action",
  "    - waiting 20ms"
])

const COVERED_SUBTREE = timeoutError("locator.click", 300, [
  "  - waiting for locator('#cov')",
  "    - locator resolved to <button id=\"cov\">Covered</button>",
  "  - attempting click action",
  "    2 × waiting for element to be visible, enabled and stable",
  "      - element is visible, enabled and stable",
  "      - scrolling into view if needed",
  "      - done scrolling",
  "      - <span>x</span> from <div class=\"modal\">…</div> subtree intercepts pointer events",
  "    - retrying click action",
  "    - waiting 20ms",
  "    - waiting for element to be visible, enabled and stable"
])

const STRICT = pwError(
  "locator.click: Error: strict mode violation: getByRole('button', { name: 'Dup' }) resolved to 2 elements:\n" +
    "    1) <button>Dup</button> aka getByRole('button', { name: 'Dup' }).first()\n" +
    "    2) <button>Dup</button> aka getByRole('button', { name: 'Dup' }).nth(1)\n\nCall log:\n" +
    dim("  - waiting for getByRole('button', { name: 'Dup' })") + "\n"
)

const DISABLED = timeoutError("locator.fill", 1500, [
  "  - waiting for locator('#dis')",
  "    - locator resolved to <input id=\"dis\" disabled aria-label=\"Dis\"/>",
  "    - fill(\"x\")",
  "  - attempting fill action",
  "    2 × waiting for element to be visible, enabled and editable",
  "      - element is not enabled",
  "    - retrying fill action"
])

const READONLY = timeoutError("locator.fill", 300, [
  "  - waiting for locator('#ro')",
  "    - locator resolved to <input id=\"ro\" readonly value=\"x\" aria-label=\"RO\"/>",
  "  - attempting fill action",
  "    2 × waiting for element to be visible, enabled and editable",
  "      - element is not editable",
  "    - retrying fill action"
])

const UNSTABLE = timeoutError("locator.click", 300, [
  "  - waiting for locator('#anim')",
  "    - locator resolved to <button id=\"anim\">Moving</button>",
  "  - attempting click action",
  "    2 × waiting for element to be visible, enabled and stable",
  "      - element is not stable",
  "    - retrying click action",
  "      - waiting 100ms"
])

const MISSING = timeoutError("locator.click", 1500, ["  - waiting for locator('#nope')"])

const LANDED = timeoutError("locator.click", 500, [
  "  - waiting for locator('#slow')",
  "    - locator resolved to <a id=\"slow\" href=\"/slow\">slow</a>",
  "  - attempting click action",
  "    - waiting for element to be visible, enabled and stable",
  "    - element is visible, enabled and stable",
  "    - scrolling into view if needed",
  "    - done scrolling",
  "    - performing click action",
  "    - click action done",
  "    - waiting for scheduled navigations to finish"
])

const OPTIONS_MISSING = timeoutError("locator.selectOption", 1500, [
  "  - waiting for getByLabel('Sel')",
  "    - locator resolved to <select aria-label=\"Sel\">…</select>",
  "  - attempting select option action",
  "    2 × waiting for element to be visible and enabled",
  "      - did not find some options",
  "    - retrying select option action"
])

const OPTION_DISABLED = timeoutError("locator.selectOption", 300, [
  "  - waiting for getByLabel('S')",
  "    - locator resolved to <select aria-label=\"S\">…</select>",
  "  - attempting select option action",
  "    2 × waiting for element to be visible and enabled",
  "      - option being selected is not enabled",
  "    - retrying select option action"
])

const NOT_FILLABLE = pwError(
  "locator.fill: Error: Element is not an <input>, <textarea>, <select> or [contenteditable] and does not have a role allowing [aria-readonly]\nCall log:\n" +
    dim("  - waiting for locator('#cov')") + "\n"
)
const NOT_SELECT = pwError("locator.selectOption: Error: Element is not a <select> element\nCall log:\n" + dim("  - waiting for getByLabel('Combo')"))
const WAIT_URL = pwError(
  "page.waitForURL: Timeout 500ms exceeded.\n=========================== logs ===========================\n" +
    "waiting for navigation to \"**/nothing\" until \"load\"\n============================================================",
  "TimeoutError"
)
const WAIT_FN = pwError("page.waitForFunction: Timeout 500ms exceeded.", "TimeoutError")
const THROWN = pwError(
  "page.evaluate: Error: boom\n    at eval (eval at evaluate (:370:30), <anonymous>:1:16)\n    at UtilityScript.evaluate (<anonymous>:370:30)"
)
const SYNTAX = pwError("page.evaluate: SyntaxError: Unexpected end of input\n    at eval (<anonymous>)\n    at UtilityScript.evaluate (<anonymous>:370:30)")
const REFUSED = pwError(
  "page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/\nCall log:\n" +
    dim("  - navigating to \"http://127.0.0.1:1/\", waiting until \"load\"")
)
const INTERRUPTED = pwError(
  "page.goto: Navigation to \"http://127.0.0.1:39765/\" is interrupted by another navigation to \"chrome-error://chromewebdata/\""
)
const UNKNOWN_KEY = pwError("keyboard.press: Unknown key: \"Foo\"")
const CLOSED = pwError("locator.click: Target page, context or browser has been closed")
const BAD_SELECTOR = pwError(
  "locator.waitFor: Unexpected token \"\" while parsing css selector \"div[[\". Did you mean to CSS.escape it?\nCall log:\n" +
    dim("  - waiting for div[[ >> visible=true >> nth=0 to be visible")
)

describe("worthWaiting", () => {
  const failure = (kind: "notFound" | "detached" | "disabled" | "covered", timedOut = true) =>
    ({ kind, timedOut, detail: "", log: [], landed: false }) as Parameters<typeof worthWaiting>[0]

  it("an element gone from the page is reported at once; one that may still change is waited out", () => {
    expect(worthWaiting(failure("notFound"))).toBe(false)
    expect(worthWaiting(failure("detached"))).toBe(false)
    expect(worthWaiting(failure("disabled"))).toBe(true)
    expect(worthWaiting(failure("covered"))).toBe(true)
    expect(worthWaiting(failure("disabled", false))).toBe(false)
  })
})

describe("classifyPlaywrightError", () => {
  it("reads the last state of a timed-out action from its call log", () => {
    expect(classifyPlaywrightError(HIDDEN)).toMatchObject({ kind: "hidden", timedOut: true, landed: false })
    expect(classifyPlaywrightError(COVERED)).toMatchObject({
      kind: "covered",
      coveredBy: "<div id=\"overlay\" class=\"modal-backdrop\"></div>"
    })
    expect(classifyPlaywrightError(COVERED_SUBTREE)).toMatchObject({ kind: "covered", coveredBy: "<div class=\"modal\">…</div>" })
    expect(classifyPlaywrightError(DISABLED).kind).toBe("disabled")
    expect(classifyPlaywrightError(READONLY).kind).toBe("notEditable")
    expect(classifyPlaywrightError(UNSTABLE).kind).toBe("unstable")
    expect(classifyPlaywrightError(MISSING)).toMatchObject({ kind: "notFound", waitingFor: "locator('#nope')" })
    expect(classifyPlaywrightError(OPTIONS_MISSING).kind).toBe("optionsNotFound")
    // Playwright's locator.drop onto an element whose dragover did not take it.
    const refusedDrop = new Error("locator.drop: Drop target did not accept the drop — its dragover handler did not call preventDefault()")
    expect(classifyPlaywrightError(refusedDrop).kind).toBe("dropRefused")
    // svc's checking lookup never answered: the page was too busy to tell. A guarded element's own
    // attribute selector that found nothing is an element gone, though its attribute is named like the engine.
    const engine = timeoutError("locator.click", 500, ["  - waiting for locator('svc-ref=%7B%22key%22%7D')"])
    expect(classifyPlaywrightError(engine).kind).toBe("unchecked")
    const guarded = timeoutError("locator.click", 500, ["  - waiting for locator('[data-svc-ref=\"g1\"]')"])
    expect(classifyPlaywrightError(guarded).kind).toBe("notFound")
    expect(classifyPlaywrightError(OPTION_DISABLED).kind).toBe("optionDisabled")
    expect(classifyPlaywrightError(WAIT_URL)).toMatchObject({
      kind: "timeout",
      waitingFor: "navigation to \"**/nothing\" until \"load\""
    })
    expect(classifyPlaywrightError(WAIT_FN)).toMatchObject({ kind: "timeout", timedOut: true })
  })

  it("knows a pointer action whose events were dispatched before the timeout", () => {
    expect(classifyPlaywrightError(LANDED)).toMatchObject({ timedOut: true, landed: true })
    // Intercepted events are blocked by playwright and retried: they did not reach the page.
    expect(classifyPlaywrightError(COVERED).landed).toBe(false)
    const intercepted = timeoutError("locator.click", 500, [
      "  - attempting click action",
      "    - performing click action",
      "    - <div id=\"pop\"></div> intercepts pointer events"
    ])
    expect(classifyPlaywrightError(intercepted).landed).toBe(false)
  })

  it("reads errors that are not timeouts from their first line", () => {
    expect(classifyPlaywrightError(STRICT)).toMatchObject({ kind: "strict", count: 2, timedOut: false })
    expect(classifyPlaywrightError(NOT_FILLABLE).kind).toBe("wrongElement")
    expect(classifyPlaywrightError(NOT_SELECT).kind).toBe("wrongElement")
    expect(classifyPlaywrightError(THROWN)).toMatchObject({ kind: "script", detail: "boom" })
    expect(classifyPlaywrightError(SYNTAX)).toMatchObject({ kind: "script", detail: "SyntaxError: Unexpected end of input" })
    expect(classifyPlaywrightError(REFUSED).kind).toBe("network")
    expect(classifyPlaywrightError(INTERRUPTED).kind).toBe("navigated")
    expect(classifyPlaywrightError(UNKNOWN_KEY).kind).toBe("unknownKey")
    expect(classifyPlaywrightError(CLOSED).kind).toBe("closed")
    expect(classifyPlaywrightError(BAD_SELECTOR).kind).toBe("badSelector")
    expect(classifyPlaywrightError("something odd").kind).toBe("other")
  })
})

describe("describeActionError", () => {
  const ctx = { description: "button \"Buy now\"", timeoutMs: 8_000 }

  it("hidden: Conflict, naming the ref, how long it waited, a snapshot and scrolling", () => {
    const e = describeActionError(HIDDEN, "e12", "click", ctx)
    expect(e._tag).toBe("Conflict")
    expect(e.message).toBe(
      "click e12 (button \"Buy now\"): after 8s the element is still not visible (hidden, zero-size or display:none); take " +
        "`svc browser snapshot --interactive` to see what is visible, or scroll it into view (`svc browser scrollintoview e12`)"
    )
  })

  it("covered: Conflict, naming the covering element, highlight, errors, requests and a trace", () => {
    const e = describeActionError(COVERED, "e12", "click", ctx)
    expect(e._tag).toBe("Conflict")
    expect(e.message).toContain(
      "click e12 (button \"Buy now\"): after 8s the element is still covered by <div id=\"overlay\" class=\"modal-backdrop\"></div>"
    )
    expect(e.message).toContain("`svc browser highlight e12`")
    expect(e.message).toContain("close the overlay first")
    expect(e.message).toContain("`svc browser errors` and `svc browser requests`, then record a trace")
    expect(describeActionError(COVERED, "e4", "hover").message).toContain("which would receive the pointer")
  })

  it("strict mode: Conflict, how many matched and to use a role ref with nth", () => {
    const e = describeActionError(STRICT, "7", "click", { description: "button \"Dup\"" })
    expect(e._tag).toBe("Conflict")
    expect(e.message).toBe(
      "click 7 (button \"Dup\"): the ref matched 2 elements; use a role ref from `svc browser snapshot --interactive` " +
        "(it carries [nth=k], which picks one)"
    )
  })

  it("timeouts: Conflict, what was waited for and for how long, and where to look", () => {
    const unstable = describeActionError(UNSTABLE, "e2", "click", ctx)
    expect(unstable._tag).toBe("Conflict")
    expect(unstable.message).toContain("click e2 (button \"Buy now\") timed out after 8s waiting for the element to stop moving")
    expect(unstable.message).toContain("svc browser requests")
    const wait = describeActionError(WAIT_URL, undefined, "wait", { timeoutMs: 500, waitedFor: "the URL to match \"**/done\"" })
    expect(wait.message).toMatch(/^wait timed out after 500ms waiting for the URL to match "\*\*\/done"; take `svc browser snapshot/)
    expect(wait.message).toContain("trace")
    const fn = describeActionError(WAIT_FN, undefined, "wait", { timeoutMs: 20_000 })
    expect(fn.message).toContain("wait timed out after 20s waiting for the condition")
    const nav = describeActionError(pwError("page.goto: Timeout 20000ms exceeded.", "TimeoutError"), undefined, "navigate", {
      url: "https://slow.example/",
      timeoutMs: 20_000
    })
    expect(nav.message).toContain("navigate https://slow.example/ timed out after 20s waiting for the page to load")
  })

  it("element states and input errors get their own status and recovery", () => {
    const cases: Array<[unknown, string, string]> = [
      [DISABLED, "Conflict", "disabled"],
      [READONLY, "Conflict", "read-only"],
      [MISSING, "NotFound", "take a fresh snapshot"],
      [OPTION_DISABLED, "Conflict", "option is disabled"],
      [NOT_FILLABLE, "InvalidRequest", "typing needs a text field"],
      [CLOSED, "BrowserUnavailable", "svc browser tabs"],
      [INTERRUPTED, "Conflict", "navigated"],
      ["something odd", "InternalError", "something odd"]
    ]
    for (const [error, tag, text] of cases) {
      const e = describeActionError(error, "e5", "type", { description: "textbox \"Name\"" })
      expect(e._tag, String(error)).toBe(tag)
      expect(e.message).toContain(text)
      expect(e.message).toContain("e5")
    }
  })

  it("select: names the options there are", () => {
    const e = describeActionError(OPTIONS_MISSING, "e5", "select", {
      values: ["Purple"],
      options: [{ value: "r", label: "Red" }, { value: "Blue", label: "Blue" }]
    })
    expect(e._tag).toBe("InvalidRequest")
    expect(e.message).toBe(
      "select e5: no option matches \"Purple\"; its options are \"Red\" (value \"r\"), \"Blue\"; pass an option's value or its visible label"
    )
    expect(describeActionError(NOT_SELECT, "e5", "select").message).toContain("for a custom dropdown, click it")
  })

  it("page scripts, keys, selectors and navigation failures", () => {
    const thrown = describeActionError(THROWN, undefined, "evaluate")
    expect(thrown._tag).toBe("InvalidRequest")
    expect(thrown.message).toContain("evaluate: the JavaScript failed in the page: boom")
    expect(describeActionError("oops", undefined, "evaluate")._tag).toBe("InvalidRequest")
    const key = describeActionError(UNKNOWN_KEY, undefined, "press", { key: "Foo" })
    expect(key._tag).toBe("InvalidRequest")
    expect(key.message).toMatch(/^press "Foo": Unknown key: "Foo"; use a key name such as Enter/)
    const selector = describeActionError(BAD_SELECTOR, undefined, "wait", { selector: "div[[" })
    expect(selector._tag).toBe("InvalidRequest")
    expect(selector.message).toContain("\"div[[\" is not a valid CSS selector")
    const refused = describeActionError(REFUSED, undefined, "navigate", { url: "http://127.0.0.1:1/" })
    expect(refused._tag).toBe("Conflict")
    expect(refused.message).toBe(
      "navigate http://127.0.0.1:1/: the page could not be loaded: net::ERR_CONNECTION_REFUSED (nothing answers on that " +
        "host and port); check the URL, then `svc browser requests`"
    )
    const pdf = describeActionError(pwError("page.pdf: Protocol error (Page.printToPDF): PrintToPDF is not implemented"), undefined, "pdf")
    expect(pdf._tag).toBe("Conflict")
    expect(pdf.message).toContain("headless")
  })

  it("a script that ran past its timeout: stopped and the tab usable, or not stoppable", () => {
    const spun = pwError("page.evaluate: Timeout 2000ms exceeded.", "TimeoutError")
    const stopped = describeActionError(spun, undefined, "evaluate", { timeoutMs: 2_000, runaway: "stopped" })
    expect(stopped._tag).toBe("Conflict")
    expect(stopped.message).toMatch(/^evaluate: the script ran past 2s and was stopped; the tab is usable\. .*--timeout <ms>/)
    const fn = describeActionError(WAIT_FN, undefined, "wait", { timeoutMs: 1_500, runaway: "stopped" })
    expect(fn.message).toContain("wait: the --fn function ran past 1.5s and was stopped; the tab is usable")
    const stuck = describeActionError(spun, undefined, "evaluate", { timeoutMs: 2_000, runaway: "stuck" })
    expect(stuck.message).toContain("could not be stopped")
    expect(stuck.message).toContain("svc browser close")
    // A script that was not running any more (a promise that never settled) is an ordinary timeout.
    expect(describeActionError(spun, undefined, "evaluate", { timeoutMs: 2_000 }).message).toContain("evaluate timed out after 2s")
  })

  it("a state seen at once (no timeout) is not said to have lasted", () => {
    const immediate = pwError("locator.click: Error: element is not enabled\nCall log:\n" + dim("  - element is not enabled"))
    expect(describeActionError(immediate, "e3", "click", { timeoutMs: 5_000 }).message).toContain("e3: the element is disabled")
  })

  it("drag names which end failed", () => {
    expect(describeActionError(HIDDEN, "e9", "drag", { part: "end", description: "listitem" }).message)
      .toMatch(/^drag onto e9 \(listitem\): the element is not visible/)
    expect(describeActionError(COVERED, "e8", "drag", { part: "start" }).message).toMatch(/^drag from e8: .*receive the drag/)
  })
})

describe("input checks", () => {
  const url = (s: string) => Either.getOrThrow(normaliseNavigationUrl(s))
  const refused = (s: string) => Either.flip(normaliseNavigationUrl(s)).pipe(Either.getOrThrow)

  it("navigate: web URLs as given, bare hosts with a scheme", () => {
    expect(url("https://example.com/a?b=1#c")).toBe("https://example.com/a?b=1#c")
    expect(url("  http://example.com  ")).toBe("http://example.com/")
    expect(url("example.com")).toBe("https://example.com/")
    expect(url("docs.example.co.uk/path")).toBe("https://docs.example.co.uk/path")
    expect(url("//cdn.example.com/x")).toBe("https://cdn.example.com/x")
    expect(url("localhost:3000/app")).toBe("http://localhost:3000/app")
    expect(url("127.0.0.1:8080")).toBe("http://127.0.0.1:8080/")
    expect(url("example.com:8443/x")).toBe("https://example.com:8443/x")
    expect(url("about:blank")).toBe("about:blank")
    expect(url("data:text/html,<h1>hi</h1>")).toBe("data:text/html,<h1>hi</h1>")
  })

  it("navigate: what is not a URL is refused with an example (schemes are the navigation policy's)", () => {
    for (const bad of ["", "hello world", "notahost", "http://"]) {
      const e = refused(bad)
      expect(e._tag, bad).toBe("InvalidRequest")
      expect(e.message, bad).toContain("svc browser navigate https://example.com")
    }
  })

  it("viewport and timeout bounds", () => {
    expect(Either.isRight(checkViewport(100, 10_000))).toBe(true)
    for (const [w, h] of [[99, 600], [800, 10_001], [800.5, 600], [Number.NaN, 600]]) {
      const e = Either.flip(checkViewport(w!, h!)).pipe(Either.getOrThrow)
      expect(e.message).toContain("from 100 to 10000")
    }
    expect(checkTimeout("click", undefined, 8_000)).toEqual(Either.right(8_000))
    expect(checkTimeout("click", 250, 8_000)).toEqual(Either.right(250))
    expect(Either.isLeft(checkTimeout("click", 0, 8_000))).toBe(true)
    expect(Either.isLeft(checkTimeout("click", 120_001, 8_000))).toBe(true)
  })

  it("keys, URL patterns and durations", () => {
    expect(normaliseKey("ctrl+a")).toBe("Control+a")
    expect(normaliseKey("esc")).toBe("Escape")
    expect(normaliseKey("shift+tab")).toBe("Shift+Tab")
    expect(normaliseKey("f5")).toBe("F5")
    expect(normaliseKey("Control++")).toBe("Control++")
    expect(normaliseKey("+")).toBe("+")
    expect(normaliseKey("NumpadEnter")).toBe("NumpadEnter")
    expect(urlMatcher("**/done")).toBe("**/done")
    expect(urlMatcher("https://x.org/a")).toBe("https://x.org/a")
    const fragment = urlMatcher("/checkout")
    expect(typeof fragment).toBe("function")
    expect((fragment as (u: URL) => boolean)(new URL("https://shop.example/checkout?step=2"))).toBe(true)
    expect(formatDuration(300)).toBe("300ms")
    expect(formatDuration(8_000)).toBe("8s")
    expect(formatDuration(1_500)).toBe("1.5s")
  })
})

// The retry policy, with fake locators whose calls answer as playwright would.

interface FakeCall {
  readonly method: string
  readonly timeout: number | undefined
}

const fakeTarget = (answers: Record<string, ReadonlyArray<() => Promise<unknown>>>, ref = "e1") => {
  const calls: Array<FakeCall> = []
  const used: Record<string, number> = {}
  const handler = (method: string) => (...args: Array<unknown>) => {
    const options = args.find((a): a is { timeout?: number } => typeof a === "object" && a !== null && "timeout" in a)
    calls.push({ method, timeout: options?.timeout })
    const list = answers[method] ?? []
    const i = used[method] ?? 0
    used[method] = i + 1
    const answer = list[Math.min(i, list.length - 1)]
    return answer !== undefined ? answer() : Promise.resolve(undefined)
  }
  const locator = new Proxy({}, { get: (_, method) => handler(String(method)) }) as unknown as Locator
  const target: ActionTarget = { locator, ref, description: "button \"Go\"" }
  return { target, calls }
}

const page = {} as Page
const reject = (e: unknown) => () => Promise.reject(e)
const resolve = (v?: unknown) => () => Promise.resolve(v)
const withActions = <A>(f: (a: Actions) => Effect.Effect<A, ActionError>) => Effect.flatMap(Actions, f).pipe(Effect.provide(Actions.Default))

describe("the retry policy", () => {
  it.effect("a covered, disabled or hidden element is waited for in longer and longer attempts up to the budget, then named", () =>
    Effect.gen(function*() {
      const uncovered = fakeTarget({ click: [reject(COVERED), resolve()] })
      yield* withActions((a) => a.click(page, uncovered.target))
      expect(uncovered.calls).toEqual([{ method: "click", timeout: PROBE_MS }, { method: "click", timeout: 2 * PROBE_MS }])
      expect(DEFAULT_ACTION_TIMEOUT_MS).toBe(5_000)
      const covered = fakeTarget({ click: [reject(COVERED), reject(COVERED)] })
      const e = yield* Effect.flip(withActions((a) => a.click(page, covered.target, { timeoutMs: 2_000 })))
      expect(e._tag).toBe("Conflict")
      expect(e.message).toContain("after 2s the element is still covered by <div id=\"overlay\"")
      // (The test clock stands still: every attempt sees the whole budget left; the last one takes all of it.)
      expect(covered.calls.map((c) => c.timeout)).toEqual([PROBE_MS, 2 * PROBE_MS, 2_000])
      const disabled = fakeTarget({ fill: [reject(DISABLED), reject(DISABLED)] })
      const d = yield* Effect.flip(withActions((a) => a.type(page, disabled.target, "x")))
      expect(d.message).toContain("after 5s the element is still disabled")
      expect(d.message).toContain("svc browser wait e1 --enabled")
      expect(disabled.calls.map((c) => c.timeout)).toEqual([PROBE_MS, 2 * PROBE_MS, 4 * PROBE_MS, DEFAULT_ACTION_TIMEOUT_MS])
      const hidden = fakeTarget({ hover: [reject(HIDDEN), reject(HIDDEN)] })
      expect((yield* Effect.flip(withActions((a) => a.hover(page, hidden.target)))).message).toContain("still not visible")
      expect(hidden.calls).toHaveLength(4)
    }))

  it.effect("an element gone from the page is reported after the short attempt, without a second one", () =>
    Effect.gen(function*() {
      const { calls, target } = fakeTarget({ click: [reject(MISSING), resolve()], count: [resolve(0)] })
      const e = yield* Effect.flip(withActions((a) => a.click(page, target)))
      expect(e._tag).toBe("NotFound")
      // The library is asked whether it matches anything now: it does not.
      expect(calls).toEqual([{ method: "click", timeout: PROBE_MS }, { method: "count", timeout: undefined }])
    }))

  it.effect("a locator that never resolved in a page too busy to answer is waited for when it matches after all", () =>
    Effect.gen(function*() {
      const slow = fakeTarget({ click: [reject(MISSING), resolve()], count: [resolve(1)] })
      yield* withActions((a) => a.click(page, slow.target))
      expect(slow.calls).toEqual([
        { method: "click", timeout: PROBE_MS },
        { method: "count", timeout: undefined },
        { method: "click", timeout: 2 * PROBE_MS }
      ])
      // Two elements: the next attempt meets the library's strict mode, and says so.
      const two = fakeTarget({ click: [reject(MISSING), reject(STRICT)], count: [resolve(2)] })
      const e = yield* Effect.flip(withActions((a) => a.click(page, two.target)))
      expect(e._tag).toBe("Conflict")
      expect(e.message).toContain("matched 2 elements")
      // The count failing (the tab closed, the page gone) is no sign of the element.
      const broken = fakeTarget({ click: [reject(MISSING), resolve()], count: [reject(new Error("Target closed"))] })
      expect((yield* Effect.flip(withActions((a) => a.click(page, broken.target))))._tag).toBe("NotFound")
    }))

  it.effect("an element still animating gets another, longer attempt", () =>
    Effect.gen(function*() {
      const { calls, target } = fakeTarget({ click: [reject(UNSTABLE), resolve()] })
      yield* withActions((a) => a.click(page, target))
      expect(calls).toEqual([{ method: "click", timeout: PROBE_MS }, { method: "click", timeout: 2 * PROBE_MS }])
    }))

  it.effect("an element taken away while the action waits for it is reported when the attempt under way ends", () =>
    Effect.gen(function*() {
      const { calls, target } = fakeTarget({ click: [reject(COVERED), reject(MISSING), resolve()], count: [resolve(0)] })
      const e = yield* Effect.flip(withActions((a) => a.click(page, target, { timeoutMs: 30_000 })))
      expect(e._tag).toBe("NotFound")
      expect(calls.filter((c) => c.method === "click").map((c) => c.timeout)).toEqual([PROBE_MS, 2 * PROBE_MS])
    }))

  it.effect("a click whose events went out before the short attempt ended is not repeated", () =>
    Effect.gen(function*() {
      const { calls, target } = fakeTarget({ click: [reject(LANDED), resolve()] })
      yield* withActions((a) => a.click(page, target, { double: false }))
      expect(calls).toHaveLength(1)
      const dbl = fakeTarget({ dblclick: [reject(LANDED)] })
      yield* withActions((a) => a.click(page, dbl.target, { double: true, timeoutMs: 2_000 }))
      expect(dbl.calls).toEqual([{ method: "dblclick", timeout: PROBE_MS }])
    }))

  it.effect("strict mode fails at once; a second patient attempt that times out says so", () =>
    Effect.gen(function*() {
      const strict = fakeTarget({ hover: [reject(STRICT)] })
      expect((yield* Effect.flip(withActions((a) => a.hover(page, strict.target))))._tag).toBe("Conflict")
      expect(strict.calls).toHaveLength(1)
      const slow = fakeTarget({ fill: [reject(UNSTABLE), reject(UNSTABLE)] })
      const e = yield* Effect.flip(withActions((a) => a.type(page, slow.target, "x", { timeoutMs: 3_000 })))
      expect(e.message).toContain("timed out after 3s")
      expect(slow.calls.map((c) => c.timeout)).toEqual([PROBE_MS, 2 * PROBE_MS, 3_000])
    }))

  it.effect("select waits while its options change, then names them; options that stay the same end the wait", () =>
    Effect.gen(function*() {
      const settled = fakeTarget({
        selectOption: [reject(OPTIONS_MISSING)],
        evaluate: [resolve([{ value: "r", label: "Red" }])]
      })
      const e = yield* Effect.flip(withActions((a) => a.select(page, settled.target, ["Purple"])))
      expect(e.message).toContain("\"Red\" (value \"r\")")
      // The options read after each attempt: the same twice, so no third attempt; then read again for the message.
      expect(settled.calls.map((c) => c.method)).toEqual(["selectOption", "evaluate", "selectOption", "evaluate", "evaluate"])
      const loading = fakeTarget({
        selectOption: [reject(OPTIONS_MISSING)],
        evaluate: [resolve([]), resolve([{ value: "r", label: "Red" }]), resolve([{ value: "r", label: "Red" }])]
      })
      yield* Effect.flip(withActions((a) => a.select(page, loading.target, ["Purple"])))
      expect(loading.calls.filter((c) => c.method === "selectOption").map((c) => c.timeout)).toEqual([PROBE_MS, 2 * PROBE_MS, 4 * PROBE_MS])
    }))

  it.effect("a call that never settles is abandoned after its timeout and a grace period", () =>
    Effect.gen(function*() {
      const { target } = fakeTarget({ hover: [() => new Promise(() => undefined)] })
      const fiber = yield* Effect.fork(withActions((a) => a.hover(page, target, { timeoutMs: 1_000 })))
      yield* TestClock.adjust("3 seconds")
      const e = yield* Effect.flip(Fiber.join(fiber))
      expect(e._tag).toBe("Conflict")
      expect(e.message).toContain("hover e1 (button \"Go\") did not finish within 1s")
    }))

  it.effect("bad input is refused before the page is touched", () =>
    Effect.gen(function*() {
      const { calls, target } = fakeTarget({})
      expect((yield* Effect.flip(withActions((a) => a.click(page, target, { timeoutMs: 0 }))))._tag).toBe("InvalidRequest")
      expect((yield* Effect.flip(withActions((a) => a.select(page, target, []))))._tag).toBe("InvalidRequest")
      expect((yield* Effect.flip(withActions((a) => a.fill(page, [{ target, type: "checkbox", value: "maybe" }]))))._tag)
        .toBe("InvalidRequest")
      expect((yield* Effect.flip(withActions((a) => a.wait(page, {}))))._tag).toBe("InvalidRequest")
      const alone = yield* Effect.flip(withActions((a) => a.wait(page, { enabled: true, text: "x" })))
      expect(alone.message).toContain("--enabled needs the element to wait for")
      const both = yield* Effect.flip(withActions((a) => a.wait(page, { target, selector: "#go" })))
      expect(both.message).toContain("a ref or a CSS selector, not both")
      expect((yield* Effect.flip(withActions((a) => a.resize(page, 10, 10))))._tag).toBe("InvalidRequest")
      expect((yield* Effect.flip(withActions((a) => a.navigate(page, "hello world"))))._tag).toBe("InvalidRequest")
      expect((yield* Effect.flip(withActions((a) => a.type(page, target, "x".repeat(1_001), { slowly: true }))))._tag)
        .toBe("InvalidRequest")
      expect(calls).toEqual([])
    }))
})
