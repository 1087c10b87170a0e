import { Clock, Data, Effect, Either } from "effect"
import type { JSHandle, Locator, Page } from "playwright-core"
import { BrowserUnavailable, Conflict, InternalError, InvalidRequest, NotFound } from "../../domain/errors.js"
import { pngSize } from "../cdp/Cdp.js"
import { parseUserUrl, type UrlProblem } from "../../platform/url.js"

// Actions on a playwright page and on targets the Refs module has already resolved. Every call is bounded
// by a short timeout, and states that waiting will not fix (hidden, covered, disabled, gone) are answered
// within about half a second instead of after the whole timeout, with a message naming the ref and what to
// do next.

/** A snapshot ref resolved to a locator. */
export interface ActionTarget {
  readonly locator: Locator
  /** What the ref points at, for messages: `button "Save"`. */
  readonly description: string
  /** The ref as the agent wrote it: `12`, `e3`, `f1e2`. */
  readonly ref: string
}

export type ActionName =
  | "navigate"
  | "resize"
  | "click"
  | "type"
  | "press"
  | "hover"
  | "scrollIntoView"
  | "drag"
  | "select"
  | "fill"
  | "wait"
  | "evaluate"
  | "close"
  | "highlight"
  | "screenshot"
  | "pdf"

export type ActionError = InvalidRequest | NotFound | Conflict | BrowserUnavailable | InternalError

export const DEFAULT_ACTION_TIMEOUT_MS = 8_000
export const DEFAULT_NAVIGATE_TIMEOUT_MS = 20_000
export const DEFAULT_WAIT_TIMEOUT_MS = 20_000
export const DEFAULT_PDF_TIMEOUT_MS = 30_000
export const MAX_TIMEOUT_MS = 120_000
export const MAX_WAIT_TIME_MS = 60_000
/**
 * How long the first, short attempt of an action runs. Playwright retries at about 0, 20, 120 and 220 ms;
 * an element still hidden, covered or disabled after that is reported instead of waited for.
 */
export const PROBE_MS = 500
/** After DOMContentLoaded, how long navigate still lets the `load` event come. */
export const LOAD_GRACE_MS = 3_000
export const EVALUATE_RESULT_LIMIT = 100_000
export const HIGHLIGHT_MS = 2_500
export const HIGHLIGHT_COLOR = "rgb(255, 0, 170)"
export const MIN_VIEWPORT = 100
export const MAX_VIEWPORT = 10_000
/** `type --slowly`: the pause between keys, and the most characters typed that way. */
export const SLOW_KEY_DELAY_MS = 50
export const MAX_SLOW_TEXT = 1_000
/** drag: pointer moves between the start and the end. */
export const DRAG_STEPS = 5
/** Beyond an action's own timeout, how long before the call is abandoned as hung. */
const HANG_GRACE_MS = 2_000

// ---------------------------------------------------------------------------------------------------------
// Reading playwright's errors

export type FailureKind =
  | "hidden"
  | "covered"
  | "strict"
  | "disabled"
  | "notEditable"
  | "inert"
  | "notFound"
  | "detached"
  | "unstable"
  | "optionsNotFound"
  | "optionDisabled"
  | "wrongElement"
  | "closed"
  | "navigated"
  | "network"
  | "script"
  | "badSelector"
  | "unknownKey"
  | "pdfUnsupported"
  | "timeout"
  | "other"

/** A playwright error, read: what state the element was last seen in, and what was going on. */
export interface PlaywrightFailure {
  readonly kind: FailureKind
  readonly timedOut: boolean
  /** The message's first line without the API prefix (`locator.click: `). */
  readonly detail: string
  /** The call log, one step a line, oldest first. */
  readonly log: ReadonlyArray<string>
  /** covered: the element that would receive the pointer (the overlay's root when playwright names it). */
  readonly coveredBy?: string
  /** strict: how many elements the locator matched. */
  readonly count?: number
  /** timeout: the last thing playwright said it was waiting for. */
  readonly waitingFor?: string
  /** The pointer action ran (its events were dispatched) before the failure. */
  readonly landed: boolean
}

const ANSI = /\u001b\[[0-9;]*m/g

const callLog = (message: string): Array<string> => {
  const at = message.indexOf("Call log:")
  const logs = message.indexOf("=== logs ===")
  const start = at >= 0 ? message.indexOf("\n", at) : logs >= 0 ? message.indexOf("\n", logs) : -1
  if (start < 0) return []
  return message.slice(start + 1).split("\n")
    .map((line) => line.trim().replace(/^-\s*/, "").replace(/^\d+ × /, ""))
    .filter((line) => line !== "" && !/^=+$/.test(line))
}

const stateOf = (line: string): { kind: FailureKind; coveredBy?: string } | undefined => {
  const covered = /^(.*) intercepts pointer events$/.exec(line)
  if (covered) {
    const [hit, root] = covered[1]!.split(/ from (.*) subtree$/)
    return { kind: "covered", coveredBy: root !== undefined && root !== "" ? root : hit! }
  }
  if (/element is not visible|element is outside of the viewport|locator resolved to hidden/.test(line)) {
    return { kind: "hidden" }
  }
  if (/element is not enabled/.test(line)) return { kind: "disabled" }
  if (/element is not editable/.test(line)) return { kind: "notEditable" }
  if (/element is inert/.test(line)) return { kind: "inert" }
  if (/element is not stable/.test(line)) return { kind: "unstable" }
  if (/did not find some options/.test(line)) return { kind: "optionsNotFound" }
  if (/option being selected is not enabled/.test(line)) return { kind: "optionDisabled" }
  if (/element was detached|element is not attached/.test(line)) return { kind: "detached" }
  return undefined
}

/** The state a timed-out call was last in: the latest state line of its log. */
const timeoutState = (log: ReadonlyArray<string>): Pick<PlaywrightFailure, "kind" | "coveredBy" | "waitingFor"> => {
  const waiting = [...log].reverse().find((line) => line.startsWith("waiting for "))
  const waitingFor = waiting?.replace(/^waiting for /, "")
  const base = waitingFor !== undefined ? { waitingFor } : {}
  for (let i = log.length - 1; i >= 0; i--) {
    const state = stateOf(log[i]!)
    if (state !== undefined) return { ...base, ...state }
  }
  // Waited for a locator that never resolved to an element.
  if (waiting !== undefined && /^waiting for (locator|getBy|frameLocator|internal:|aria-ref)/.test(waiting) &&
    !log.some((line) => line.includes("resolved to"))) {
    return { ...base, kind: "notFound" }
  }
  return { ...base, kind: "timeout" }
}

const errorText = (error: unknown): { name: string; message: string } => {
  if (error instanceof Error) return { name: error.name, message: error.message }
  if (typeof error === "object" && error !== null && "message" in error) {
    const e = error as { name?: unknown; message?: unknown }
    return { name: typeof e.name === "string" ? e.name : "Error", message: String(e.message) }
  }
  return { name: "Error", message: String(error) }
}

/** Reads a playwright error (its message and call log) into the state it describes. */
export const classifyPlaywrightError = (error: unknown): PlaywrightFailure => {
  const { message: raw, name } = errorText(error)
  const message = raw.replace(ANSI, "")
  const firstLine = message.split("\n")[0] ?? ""
  const detail = firstLine.replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "").replace(/^Error: /, "").trim()
  const log = callLog(message)
  const timedOut = name === "TimeoutError" || /Timeout [\d.]+ms exceeded/.test(firstLine)
  // Playwright blocks the events of an attempt whose pointer would land elsewhere, and retries; an attempt
  // that got as far as performing its action and was not retried has reached the page.
  const lastPerforming = log.map((l) => /^performing .* action$/.test(l)).lastIndexOf(true)
  const landed = log.some((l) => / action done$/.test(l) && !l.startsWith("trial ")) ||
    (lastPerforming >= 0 &&
      !log.slice(lastPerforming).some((l) => l.startsWith("retrying ") || l.endsWith("intercepts pointer events")))
  const base = { detail, log, timedOut, landed }

  const strict = /strict mode violation: .* resolved to (\d+) elements/.exec(message)
  if (strict) return { ...base, kind: "strict", count: Number(strict[1]) }
  if (/Target page, context or browser has been closed|Browser has been closed|Target closed|browser has disconnected/i.test(message)) {
    return { ...base, kind: "closed" }
  }
  if (/Execution context was destroyed|Frame was detached|frame got detached|interrupted by another navigation/i.test(firstLine)) {
    return { ...base, kind: "navigated" }
  }
  if (/Element is not attached to the DOM|Node is detached|element is detached/i.test(firstLine)) {
    return { ...base, kind: "detached" }
  }
  if (/net::ERR_[A-Z_]+/.test(firstLine)) return { ...base, kind: "network" }
  if (/Unknown key: /.test(firstLine)) return { ...base, kind: "unknownKey" }
  if (/while parsing (css )?selector|Unexpected token .* selector|is not a valid selector|Unknown engine/i.test(firstLine)) {
    return { ...base, kind: "badSelector" }
  }
  if (
    /Element is not an <input>|Not a checkbox or radio button|Element is not a <select> element|Cannot uncheck radio button|cannot be filled|Malformed value|did not change its state|Not a select element/i
      .test(firstLine)
  ) {
    return { ...base, kind: "wrongElement" }
  }
  if (/PrintToPDF is not implemented|Printing is not available|Printing failed/i.test(firstLine)) {
    return { ...base, kind: "pdfUnsupported" }
  }
  // An exception thrown by page code the agent gave (evaluate, wait --fn): its stack runs through eval.
  if (/at eval \(|eval at |UtilityScript\./.test(message) && !timedOut) {
    return { ...base, kind: "script" }
  }
  if (timedOut) return { ...base, ...timeoutState(log) }
  const state = log.length > 0 ? stateOf(log[log.length - 1]!) : undefined
  if (state !== undefined) return { ...base, ...state }
  return { ...base, kind: "other" }
}

/** States that more waiting will not fix: an action in one of them is reported after the short attempt. */
const REPORT_AT_ONCE: ReadonlySet<FailureKind> = new Set<FailureKind>([
  "hidden",
  "covered",
  "disabled",
  "notEditable",
  "inert",
  "notFound",
  "detached",
  "optionsNotFound",
  "optionDisabled"
])

/** Whether a failure of the short attempt is worth a second, patient attempt. */
const worthWaiting = (f: PlaywrightFailure): boolean => f.timedOut && !REPORT_AT_ONCE.has(f.kind)

// ---------------------------------------------------------------------------------------------------------
// Messages a model can act on

export interface DescribeContext {
  /** What the ref points at (`button "Save"`). */
  readonly description?: string | undefined
  /** The timeout the call had, for "timed out after …". */
  readonly timeoutMs?: number | undefined
  /** What a wait or navigation waited for, in words. */
  readonly waitedFor?: string | undefined
  /** navigate: the URL. */
  readonly url?: string | undefined
  /** press: the key. */
  readonly key?: string | undefined
  /** wait: the selector. */
  readonly selector?: string | undefined
  /** select: the values asked for, and the options the element has. */
  readonly values?: ReadonlyArray<string> | undefined
  readonly options?: ReadonlyArray<{ readonly value: string; readonly label: string }> | undefined
  /** drag: which end the ref is. */
  readonly part?: "start" | "end" | undefined
}

const SNAPSHOT = "`svc browser snapshot --interactive`"
const INVESTIGATE = "check `svc browser errors` and `svc browser requests`, then record a trace " +
  "(`svc browser trace start`, repeat the step, `svc browser trace stop`)"

export const formatDuration = (ms: number): string =>
  ms < 1_000 ? `${Math.round(ms)}ms` : `${Number((ms / 1_000).toFixed(1))}s`

const quoteList = (values: ReadonlyArray<string>): string => values.map((v) => JSON.stringify(v)).join(", ")

const subject = (action: ActionName, ref: string | undefined, ctx: DescribeContext): string => {
  const what = ref === undefined
    ? ""
    : ` ${ref}${ctx.description !== undefined && ctx.description !== "" && ctx.description !== ref ? ` (${ctx.description})` : ""}`
  if (action === "drag") return ctx.part === "end" ? `drag onto${what}` : `drag from${what}`
  if (action === "navigate" && ctx.url !== undefined) return `navigate ${ctx.url}`
  if (action === "press" && ctx.key !== undefined) return `press ${JSON.stringify(ctx.key)}`
  return `${action}${what}`
}

const STATE_WORDS: Partial<Record<FailureKind, string>> = {
  unstable: "the element to stop moving (it is animating or being re-laid out)",
  disabled: "the element to be enabled",
  hidden: "the element to be visible",
  notFound: "the element to appear"
}

const NETWORK_HINTS: Record<string, string> = {
  ERR_NAME_NOT_RESOLVED: "the host name does not resolve; check the spelling",
  ERR_CONNECTION_REFUSED: "nothing answers on that host and port",
  ERR_CONNECTION_TIMED_OUT: "the server did not answer",
  ERR_CONNECTION_RESET: "the connection was reset",
  ERR_INTERNET_DISCONNECTED: "this machine has no network",
  ERR_ADDRESS_UNREACHABLE: "the address is unreachable from this machine",
  ERR_CERT_AUTHORITY_INVALID: "the site's certificate is not trusted",
  ERR_CERT_COMMON_NAME_INVALID: "the site's certificate is for another name",
  ERR_SSL_PROTOCOL_ERROR: "the TLS handshake failed (is it an http-only server?)",
  ERR_UNSAFE_PORT: "the browser refuses that port",
  ERR_ABORTED: "the navigation was aborted (a download, or the page navigated elsewhere)",
  ERR_BLOCKED_BY_CLIENT: "the browser blocked the request",
  ERR_TOO_MANY_REDIRECTS: "the site redirects in a loop"
}

/** Maps a classified failure onto the error the control API answers with. */
export const describeFailure = (
  f: PlaywrightFailure,
  ref: string | undefined,
  action: ActionName,
  ctx: DescribeContext = {}
): ActionError => {
  const who = subject(action, ref, ctx)
  const r = ref ?? "<ref>"
  const after = ctx.timeoutMs !== undefined ? ` after ${formatDuration(ctx.timeoutMs)}` : ""
  const pointer = action === "hover" ? "the pointer" : action === "drag" ? "the drag" : "the click"

  if (action === "wait" && f.timedOut) {
    return new Conflict({
      message: `wait timed out${after} waiting for ${ctx.waitedFor ?? f.waitingFor ?? "the condition"}; ` +
        `take ${SNAPSHOT} to see the page as it is, then ${INVESTIGATE}`
    })
  }
  if (action === "navigate" && f.timedOut) {
    return new Conflict({
      message: `${who} timed out${after} waiting for the page to load; it may still be loading: take ` +
        `${SNAPSHOT} to see what arrived, then ${INVESTIGATE}`
    })
  }

  switch (f.kind) {
    case "hidden":
      return new Conflict({
        message: action === "scrollIntoView"
          ? `${who}: the element is not visible (hidden, zero-size or display:none), so it cannot be scrolled to; ` +
            `it may sit in a closed menu, tab or collapsed section: open that first (take ${SNAPSHOT} to see what is visible)`
          : `${who}: the element is not visible (hidden, zero-size or display:none); take ${SNAPSHOT} to see ` +
            `what is visible, or scroll it into view (\`svc browser scrollintoview ${r}\`)`
      })
    case "covered":
      return new Conflict({
        message: `${who}: the element is covered by ${f.coveredBy ?? "another element"}, which would receive ` +
          `${pointer}; use \`svc browser highlight ${r}\` to see it, close the overlay first (a dialog, cookie ` +
          `banner or menu: find its close button in ${SNAPSHOT}, or \`svc browser press Escape\`), then ${INVESTIGATE}`
      })
    case "strict":
      return new Conflict({
        message: `${who}: the ref matched ${f.count ?? "several"} elements; use a role ref from ${SNAPSHOT} ` +
          `(it carries [nth=k], which picks one)`
      })
    case "disabled":
      return new Conflict({
        message: `${who}: the element is disabled; do what enables it first (required fields, a checkbox to ` +
          `tick: take ${SNAPSHOT}), or wait for it (\`svc browser wait\`), then ${INVESTIGATE}`
      })
    case "notEditable":
      return new Conflict({
        message: `${who}: the element is read-only; type into an editable field (take ${SNAPSHOT}: textbox ` +
          `refs), or do what makes it editable first`
      })
    case "inert":
      return new Conflict({
        message: `${who}: the element is inert: a modal dialog makes the rest of the page unreachable; close ` +
          `or finish the dialog first (it is in ${SNAPSHOT})`
      })
    case "notFound":
      return new NotFound({
        message: `${who}: no element matches this ref any more (the page changed since the snapshot); take a ` +
          `fresh snapshot (${SNAPSHOT}) and use its refs`
      })
    case "detached":
      return new NotFound({
        message: `${who}: the element was removed from the page (it re-rendered or navigated); take a fresh ` +
          `snapshot (${SNAPSHOT}) and use its refs`
      })
    case "optionsNotFound": {
      const asked = ctx.values !== undefined ? ` ${quoteList(ctx.values)}` : ""
      const known = ctx.options !== undefined && ctx.options.length > 0
        ? `; its options are ${
          ctx.options.slice(0, 30).map((o) => o.label === o.value ? JSON.stringify(o.value) : `${JSON.stringify(o.label)} (value ${JSON.stringify(o.value)})`)
            .join(", ")
        }${ctx.options.length > 30 ? `, … (${ctx.options.length} in all)` : ""}`
        : ""
      return new InvalidRequest({
        message: `${who}: no option matches${asked}${known}; pass an option's value or its visible label`
      })
    }
    case "optionDisabled":
      return new Conflict({
        message: `${who}: the option is disabled; pick another option, or do what enables it first`
      })
    case "wrongElement": {
      const hint = action === "select"
        ? "select works on a <select>; for a custom dropdown, click it, take a snapshot and click the option"
        : action === "type" || action === "fill"
        ? "typing needs a text field (input, textarea or contenteditable); a checkbox takes true or false, a " +
          `<select> takes \`svc browser select ${r} <option>\`, a custom slider takes \`svc browser press ArrowRight\` after a click`
        : "take a snapshot and check the element's role"
      return new InvalidRequest({ message: `${who}: ${f.detail}; ${hint}` })
    }
    case "closed":
      return new BrowserUnavailable({
        message: `${who}: the tab or the browser was closed; list tabs with \`svc browser tabs\`, or start the ` +
          "browser again with `svc browser start`"
      })
    case "navigated":
      return new Conflict({
        message: `${who}: the page navigated or the frame went away during the action; take a fresh snapshot ` +
          `(${SNAPSHOT}) and retry with its refs`
      })
    case "network": {
      const code = /net::(ERR_[A-Z_]+)/.exec(f.detail)?.[1] ?? "a network error"
      const hint = NETWORK_HINTS[code]
      return new Conflict({
        message: `${who}: the page could not be loaded: net::${code}${hint !== undefined ? ` (${hint})` : ""}; ` +
          "check the URL, then `svc browser requests`"
      })
    }
    case "script":
      return new InvalidRequest({
        message: `${who}: the JavaScript failed in the page: ${f.detail}; fix the function (it runs in the page, ` +
          "e.g. `() => document.title`, or `(el) => el.textContent` with a ref)"
      })
    case "badSelector":
      return new InvalidRequest({
        message: `${who}: ${ctx.selector !== undefined ? `${JSON.stringify(ctx.selector)} is not a valid CSS selector` : "invalid selector"} (${f.detail}); ` +
          "e.g. `svc browser wait '#results li'`, or wait for text with `--text`"
      })
    case "unknownKey":
      return new InvalidRequest({
        message: `${who}: ${f.detail}; use a key name such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, ` +
          "F5, a single character, or a chord such as Control+A or Shift+Tab"
      })
    case "pdfUnsupported":
      return new Conflict({
        message: `${who}: this browser cannot print to PDF (Chromium prints only in headless mode); use ` +
          "`svc browser screenshot --full-page`, or run the profile headless"
      })
    case "unstable":
    case "timeout": {
      const what = ctx.waitedFor ?? STATE_WORDS[f.kind] ?? (f.waitingFor !== undefined ? f.waitingFor : "the page")
      return new Conflict({ message: `${who} timed out${after} waiting for ${what}; ${INVESTIGATE}` })
    }
    case "other":
      if (action === "evaluate") return describeFailure({ ...f, kind: "script" }, ref, action, ctx)
      return new InternalError({ message: `${who} failed: ${f.detail}; ${INVESTIGATE}` })
  }
}

/**
 * Maps an error thrown by playwright during `action` on `ref` onto the error the control API answers with,
 * naming the ref and the recovery.
 */
export const describeActionError = (
  error: unknown,
  ref: string | undefined,
  action: ActionName,
  ctx: DescribeContext = {}
): ActionError => describeFailure(classifyPlaywrightError(error), ref, action, ctx)

// ---------------------------------------------------------------------------------------------------------
// Checking input

const EXAMPLE = "e.g. `svc browser navigate https://example.com`"

const navigateProblem = (raw: string, problem: UrlProblem): string => {
  switch (problem.kind) {
    case "empty":
      return `give a URL, ${EXAMPLE}`
    case "not-a-url":
      return `${JSON.stringify(raw.trim())} is not a URL; give a full URL, ${EXAMPLE}`
    case "no-host":
      return `${JSON.stringify(raw.trim())} has no host, ${EXAMPLE}`
    case "about-page":
      return `of the about: pages only about:blank can be opened (the others are browser settings), ${EXAMPLE}`
    case "scheme": {
      const why = problem.scheme === "javascript"
        ? "javascript: URLs are not opened; run code with `svc browser evaluate --fn`"
        : problem.scheme === "file"
        ? "file: URLs are refused (local files stay outside the browser); serve the file over http"
        : `${problem.scheme}: URLs cannot be opened; only http, https, about:blank and data: URLs can`
      return `${why}, ${EXAMPLE}`
    }
  }
}

/**
 * The URL navigate opens (see parseUserUrl: web URLs as given, bare hosts get a scheme); file: and other
 * schemes are refused with an example.
 */
export const normaliseNavigationUrl = (input: string): Either.Either<string, InvalidRequest> =>
  Either.mapLeft(parseUserUrl(input), (problem) => new InvalidRequest({ message: `navigate: ${navigateProblem(input, problem)}` }))

/** Viewport dimensions in CSS pixels, whole numbers from 100 to 10000. */
export const checkViewport = (width: number, height: number): Either.Either<{ width: number; height: number }, InvalidRequest> => {
  const ok = (n: number) => Number.isInteger(n) && n >= MIN_VIEWPORT && n <= MAX_VIEWPORT
  if (ok(width) && ok(height)) return Either.right({ width, height })
  return Either.left(
    new InvalidRequest({
      message: `resize: width and height must be whole numbers of CSS pixels from ${MIN_VIEWPORT} to ${MAX_VIEWPORT} ` +
        `(got ${width} × ${height}), e.g. \`svc browser resize 1280 800\``
    })
  )
}

export const checkTimeout = (
  action: ActionName,
  timeoutMs: number | undefined,
  fallback: number
): Either.Either<number, InvalidRequest> => {
  if (timeoutMs === undefined) return Either.right(fallback)
  if (Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS) return Either.right(timeoutMs)
  return Either.left(
    new InvalidRequest({
      message: `${action}: timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${timeoutMs})`
    })
  )
}

const KEY_NAMES: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  cmd: "Meta",
  command: "Meta",
  meta: "Meta",
  win: "Meta",
  super: "Meta",
  opt: "Alt",
  option: "Alt",
  alt: "Alt",
  shift: "Shift",
  controlormeta: "ControlOrMeta",
  mod: "ControlOrMeta",
  enter: "Enter",
  return: "Enter",
  esc: "Escape",
  escape: "Escape",
  tab: "Tab",
  space: "Space",
  spacebar: "Space",
  backspace: "Backspace",
  del: "Delete",
  delete: "Delete",
  ins: "Insert",
  insert: "Insert",
  home: "Home",
  end: "End",
  pageup: "PageUp",
  pgup: "PageUp",
  pagedown: "PageDown",
  pgdn: "PageDown",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight"
}

/** Playwright's key name for what an agent wrote: `ctrl+a` → `Control+a`, `esc` → `Escape`, `f5` → `F5`. */
export const normaliseKey = (key: string): string =>
  key.split(/\+(?!$)/).map((part) => {
    if (part.length <= 1) return part
    const lower = part.toLowerCase()
    const named = KEY_NAMES[lower]
    if (named !== undefined) return named
    const fn = /^f(\d{1,2})$/.exec(lower)
    if (fn && Number(fn[1]) >= 1 && Number(fn[1]) <= 24) return `F${fn[1]}`
    return part
  }).join("+")

/** How a glob given to `wait --url` is matched: a plain fragment (no wildcard, no scheme) matches as a substring. */
export const urlMatcher = (pattern: string): string | ((url: URL) => boolean) =>
  /[*?[\]{}]/.test(pattern) || /^[a-z][a-z0-9+.-]*:/i.test(pattern) ? pattern : (url: URL) => url.href.includes(pattern)

// ---------------------------------------------------------------------------------------------------------
// Code that runs in the page. Each function is self-contained: playwright sends its source text.

/** Runs the agent's source: an expression, or a function (called with the element when there is a ref). */
const runAgentCode = async (element: unknown, source: string): Promise<unknown> => {
  const value: unknown = (0, eval)(source)
  return typeof value === "function" ? await (value as (el: unknown) => unknown)(element) : await value
}

/** The same without an element. */
const runAgentCodeOnPage = async (source: string): Promise<unknown> => {
  const value: unknown = (0, eval)(source)
  return typeof value === "function" ? await (value as () => unknown)() : await value
}

/** JSON text of any page value, cut to `limit` characters; DOM nodes, functions and cycles become strings. */
const serialiseForAgent = (value: unknown, limit: number): { json?: string; total: number; error?: string } => {
  const seen = new WeakSet<object>()
  let json: string | undefined
  try {
    json = JSON.stringify(value, function(_key: string, v: unknown) {
      if (typeof v === "bigint") return `${v}n`
      if (typeof v === "function") return `[function ${(v as { name?: string }).name || "anonymous"}]`
      if (typeof v === "symbol") return v.toString()
      if (typeof v === "number" && !Number.isFinite(v)) return String(v)
      if (typeof v !== "object" || v === null) return v
      const node = v as { nodeType?: unknown; nodeName?: unknown; id?: unknown; className?: unknown }
      if (typeof node.nodeType === "number" && typeof node.nodeName === "string") {
        if (node.nodeType !== 1) return `[${node.nodeName}]`
        const id = typeof node.id === "string" && node.id !== "" ? `#${node.id}` : ""
        const cls = typeof node.className === "string" && node.className.trim() !== ""
          ? `.${node.className.trim().split(/\s+/).join(".")}`
          : ""
        return `<${node.nodeName.toLowerCase()}${id}${cls}>`
      }
      if (v === globalThis) return "[Window]"
      if (v instanceof Map) return Array.from(v.entries())
      if (v instanceof Set) return Array.from(v.values())
      if (v instanceof Error) return { name: v.name, message: v.message }
      if (seen.has(v)) return "[seen above]"
      seen.add(v)
      return v
    })
  } catch (e) {
    return { total: 0, error: String(e) }
  }
  if (json === undefined) return { total: 0 }
  return { json: json.length > limit ? json.slice(0, limit) : json, total: json.length }
}

// The few DOM shapes the in-page functions touch (the project compiles without the DOM library).
interface PageRect {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}
interface PageNode {
  setAttribute(name: string, value: string): void
  readonly style: { cssText: string }
  remove(): void
}
interface PageElement {
  readonly tagName: string
  readonly options?: ArrayLike<{ readonly value: string; readonly label: string }>
  readonly ownerDocument: {
    readonly defaultView: { readonly scrollX: number; readonly scrollY: number } | null
    readonly documentElement: { appendChild(node: PageNode): void }
    querySelectorAll(selector: string): { forEach(f: (node: PageNode) => void): void }
    createElement(tag: string): PageNode
  }
  getBoundingClientRect(): PageRect
}

/** Draws a bright outline over the element for `ms`, above everything, ignoring the pointer. */
const drawOutline = (node: unknown, args: { ms: number; color: string }): HighlightResult["box"] => {
  const element = node as PageElement
  const doc = element.ownerDocument
  const view = doc.defaultView
  doc.querySelectorAll("[data-svc-highlight]").forEach((old) => old.remove())
  const r = element.getBoundingClientRect()
  const box = doc.createElement("div")
  box.setAttribute("data-svc-highlight", "")
  box.setAttribute("aria-hidden", "true")
  const border = 4
  box.style.cssText = [
    "position:absolute",
    `left:${r.left + (view?.scrollX ?? 0) - border}px`,
    `top:${r.top + (view?.scrollY ?? 0) - border}px`,
    `width:${r.width}px`,
    `height:${r.height}px`,
    `border:${border}px solid ${args.color}`,
    "box-sizing:content-box",
    "border-radius:3px",
    "background:transparent",
    "margin:0",
    "padding:0",
    "z-index:2147483647",
    "pointer-events:none"
  ].join(";")
  doc.documentElement.appendChild(box)
  setTimeout(() => box.remove(), args.ms)
  return { x: r.left, y: r.top, width: r.width, height: r.height }
}

const selectOptions = (node: unknown) => {
  const element = node as PageElement
  return element.tagName === "SELECT" && element.options !== undefined
    ? Array.from(element.options).map((o) => ({ value: o.value, label: o.label }))
    : []
}

const tagName = (node: unknown) => (node as PageElement).tagName

// ---------------------------------------------------------------------------------------------------------
// Running calls within a budget

class PlaywrightCallFailed extends Data.TaggedError("PlaywrightCallFailed")<{ readonly cause: unknown }> {}

const call = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (cause) => new PlaywrightCallFailed({ cause }) })

/** A promise bounded like playwright bounds its own calls, for the APIs that take no timeout. */
const bounded = <A>(promise: Promise<A>, ms: number, api: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new Error(`${api}: Timeout ${ms}ms exceeded.`)
      e.name = "TimeoutError"
      reject(e)
    }, ms)
  })
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer))
}

interface StepOptions {
  /** The target the step acts on, when it is not the action's own (drag's end, a fill field). */
  readonly target?: ActionTarget | undefined
  readonly context?: DescribeContext | undefined
  /** More context for the message, read from the page once a step has failed. */
  readonly explain?: ((f: PlaywrightFailure) => Effect.Effect<DescribeContext>) | undefined
}

interface Steps {
  /** Runs once with the rest of the budget: for steps that must not be repeated. */
  readonly once: <A>(run: (timeout: number) => Promise<A>, options?: StepOptions) => Effect.Effect<A, ActionError>
  /**
   * An idempotent step: a short attempt first; a state waiting will not fix is reported then, anything else
   * (an animation, a slow render) gets a second attempt with the rest of the budget.
   */
  readonly idempotent: <A>(run: (timeout: number) => Promise<A>, options?: StepOptions) => Effect.Effect<A, ActionError>
  /**
   * A pointer action (click, double click): like `idempotent`, but a short attempt whose events were already
   * dispatched counts as done (only the wait for a navigation it started was cut short), so it never clicks twice.
   */
  readonly pointer: (run: (timeout: number) => Promise<void>, options?: StepOptions) => Effect.Effect<void, ActionError>
  readonly remaining: Effect.Effect<number>
}

const makeSteps = (action: ActionName, self: ActionTarget | undefined, timeoutMs: number, deadline: number): Steps => {
  const remaining = Effect.map(Clock.currentTimeMillis, (now) => Math.max(1, deadline - now))

  const fail = (f: PlaywrightFailure, options: StepOptions | undefined) =>
    Effect.gen(function*() {
      const target = options?.target ?? self
      const extra = options?.explain !== undefined ? yield* options.explain(f) : {}
      return yield* Effect.fail(describeFailure(f, target?.ref, action, {
        timeoutMs,
        ...(target !== undefined ? { description: target.description } : {}),
        ...options?.context,
        ...extra
      }))
    })

  const attempt = <A>(run: (timeout: number) => Promise<A>, timeout: number) =>
    Effect.mapError(call(() => run(timeout)), (e) => classifyPlaywrightError(e.cause))

  const once = <A>(run: (timeout: number) => Promise<A>, options?: StepOptions) =>
    Effect.flatMap(remaining, (ms) => attempt(run, ms)).pipe(Effect.catchAll((f) => fail(f, options)))

  const twice = <A>(
    run: (timeout: number) => Promise<A>,
    options: StepOptions | undefined,
    landed: { readonly value: A } | undefined
  ) =>
    Effect.gen(function*() {
      const first = yield* Effect.either(Effect.flatMap(remaining, (ms) => attempt(run, Math.min(PROBE_MS, ms))))
      if (Either.isRight(first)) return first.right
      const f = first.left
      if (landed !== undefined && f.timedOut && f.landed) return landed.value
      const left = yield* remaining
      if (!worthWaiting(f) || left <= 1) return yield* fail(f, options)
      return yield* once(run, options)
    })

  return {
    once,
    idempotent: (run, options) => twice(run, options, undefined),
    pointer: (run, options) => twice(run, options, { value: undefined }),
    remaining
  }
}

interface RunSpec {
  readonly action: ActionName
  readonly timeoutMs: number | undefined
  readonly defaultMs: number
  readonly target?: ActionTarget | undefined
  /** Budget on top of the timeout (typing slowly takes as long as the text is). */
  readonly extraMs?: number | undefined
}

/** One action: its timeout checked, a deadline, a hard stop should a call hang, and a span. */
const run = <A>(spec: RunSpec, body: (steps: Steps) => Effect.Effect<A, ActionError>): Effect.Effect<A, ActionError> =>
  Effect.gen(function*() {
    const timeoutMs = yield* checkTimeout(spec.action, spec.timeoutMs, spec.defaultMs)
    const budget = timeoutMs + (spec.extraMs ?? 0)
    const start = yield* Clock.currentTimeMillis
    const steps = makeSteps(spec.action, spec.target, timeoutMs, start + budget)
    return yield* body(steps).pipe(
      Effect.timeoutFail({
        duration: budget + HANG_GRACE_MS,
        onTimeout: () =>
          new Conflict({
            message: `${subject(spec.action, spec.target?.ref, { description: spec.target?.description })} did not ` +
              `finish within ${formatDuration(budget)}; the page may be busy or hung: ${INVESTIGATE}`
          })
      })
    )
  }).pipe(Effect.withSpan(`Actions.${spec.action}`))

// ---------------------------------------------------------------------------------------------------------
// The actions

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
}

export interface ElementScreenshot {
  readonly png: Uint8Array
  readonly width: number
  readonly height: number
}

export interface HighlightResult {
  readonly durationMs: number
  readonly box: { readonly x: number; readonly y: number; readonly width: number; readonly height: number }
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
const gotoSettled = async (page: Page, url: string, timeout: number) => {
  const start = Date.now()
  const go = (ms: number) => page.goto(url, { waitUntil: "domcontentloaded", timeout: ms })
  try {
    return await go(timeout)
  } catch (e) {
    const message = errorText(e).message
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

const makeActions = () => {
  const navigate = (page: Page, url: string, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      const href = yield* normaliseNavigationUrl(url)
      return yield* run({ action: "navigate", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_NAVIGATE_TIMEOUT_MS }, (steps) =>
        Effect.gen(function*() {
          const response = yield* steps.once((timeout) => gotoSettled(page, href, timeout), {
            context: { url: href }
          })
          // The load event usually follows; a page that keeps loading (ads, long polls) is not waited for.
          const grace = Math.min(LOAD_GRACE_MS, yield* steps.remaining)
          yield* Effect.ignore(call(() => page.waitForLoadState("load", { timeout: grace })))
          const title = yield* Effect.orElseSucceed(call(() => page.title()), () => "")
          const result: NavigateResult = {
            url: page.url(),
            title,
            ...(response !== null ? { status: response.status() } : {})
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
      return steps.pointer((timeout) =>
        options.double === true
          ? target.locator.dblclick({ ...pointer, timeout })
          : target.locator.click({ ...pointer, timeout })
      )
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
            yield* steps.idempotent((timeout) => target.locator.fill(text, { timeout }))
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
      steps.idempotent((timeout) => target.locator.hover({ timeout })))

  const scrollIntoView = (_page: Page, target: ActionTarget, options: TimeoutOption = {}) =>
    run({ action: "scrollIntoView", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      steps.idempotent((timeout) => target.locator.scrollIntoViewIfNeeded({ timeout })))

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

  const select = (_page: Page, target: ActionTarget, values: ReadonlyArray<string>, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      if (values.length === 0) {
        return yield* new InvalidRequest({
          message: `select ${target.ref}: give at least one option (its value or label), e.g. \`svc browser select ${target.ref} Blue\``
        })
      }
      return yield* run({ action: "select", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
        Effect.map(
          steps.idempotent((timeout) => target.locator.selectOption([...values], { timeout }), {
            context: { values },
            explain: (f) => f.kind === "optionsNotFound" ? readOptions(target) : Effect.succeed({})
          }),
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
              return yield* steps.idempotent((timeout) => target.locator.setChecked(value === true, { timeout }))
            case "combobox": {
              const tag = yield* steps.idempotent((timeout) => target.locator.evaluate(tagName, undefined, { timeout }))
              return tag === "SELECT"
                ? yield* Effect.asVoid(steps.idempotent((timeout) => target.locator.selectOption(String(value), { timeout }), {
                  context: { values: [String(value)] },
                  explain: (f) => f.kind === "optionsNotFound" ? readOptions(target) : Effect.succeed({})
                }))
                : yield* steps.idempotent((timeout) => target.locator.fill(String(value), { timeout }))
            }
            case "textbox":
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
      const conditions = [options.selector, options.text, options.textGone, options.url, options.load, options.fn]
        .filter((c) => c !== undefined)
      if (conditions.length === 0 && options.timeMs === undefined) {
        return yield* new InvalidRequest({
          message: "wait: say what to wait for: a selector, --text, --text-gone, --url, --load, --fn or --time, " +
            "e.g. `svc browser wait --text Done`"
        })
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
          if (options.selector !== undefined) {
            const selector = options.selector
            yield* steps.once(
              (timeout) => page.locator(selector).filter({ visible: true }).first().waitFor({ state: "visible", timeout }),
              { context: { selector, waitedFor: `an element matching ${JSON.stringify(selector)} to be visible` } }
            )
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
            const handle = yield* steps.once(
              (timeout) => page.waitForFunction(async (src: string) => {
                const value: unknown = (0, eval)(src)
                return typeof value === "function" ? await (value as () => unknown)() : value
              }, source, { timeout }),
              { context: { waitedFor: "the function to return a truthy value" } }
            )
            yield* Effect.ignore(call(() => handle.dispose()))
          }
        }))
    })

  const evaluate = (page: Page, fn: string, target?: ActionTarget, options: TimeoutOption = {}) =>
    Effect.gen(function*() {
      if (fn.trim() === "") {
        return yield* new InvalidRequest({ message: "evaluate: give a function, e.g. `--fn '() => document.title'`" })
      }
      return yield* run({ action: "evaluate", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
        Effect.gen(function*() {
          let result: JSHandle
          if (target !== undefined) {
            const element = yield* steps.idempotent((timeout) => target.locator.elementHandle({ timeout }))
            result = yield* steps.once((timeout) =>
              bounded(element.evaluateHandle(runAgentCode, fn), timeout, "elementHandle.evaluate")
                .finally(() => element.dispose().catch(() => undefined))
            )
          } else {
            result = yield* steps.once((timeout) => bounded(page.evaluateHandle(runAgentCodeOnPage, fn), timeout, "page.evaluate"))
          }
          const out = yield* steps.once((timeout) =>
            bounded(result.evaluate(serialiseForAgent, EVALUATE_RESULT_LIMIT), timeout, "page.evaluate")
              .finally(() => result.dispose().catch(() => undefined))
          )
          if (out.error !== undefined) {
            return `[the result cannot be shown as JSON: ${out.error}]`
          }
          if (out.json === undefined) return null
          if (out.total > EVALUATE_RESULT_LIMIT) {
            return `${out.json}… [truncated: ${EVALUATE_RESULT_LIMIT} of ${out.total} characters of JSON shown; ` +
              "return less, e.g. a count or a slice]"
          }
          return JSON.parse(out.json) as unknown
        }))
    })

  const close = (page: Page, options: TimeoutOption = {}) =>
    run({ action: "close", timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      steps.once((timeout) => bounded(page.close(), timeout, "page.close")))

  const highlight = (_page: Page, target: ActionTarget, options: TimeoutOption & { readonly durationMs?: number | undefined } = {}) =>
    run({ action: "highlight", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        const ms = options.durationMs ?? HIGHLIGHT_MS
        yield* steps.idempotent((timeout) => target.locator.scrollIntoViewIfNeeded({ timeout }))
        const box = yield* steps.once((timeout) => target.locator.evaluate(drawOutline, { ms, color: HIGHLIGHT_COLOR }, { timeout }))
        const result: HighlightResult = { durationMs: ms, box }
        return result
      }))

  const elementScreenshot = (_page: Page, target: ActionTarget, options: TimeoutOption = {}) =>
    run({ action: "screenshot", target, timeoutMs: options.timeoutMs, defaultMs: DEFAULT_ACTION_TIMEOUT_MS }, (steps) =>
      Effect.gen(function*() {
        yield* steps.idempotent((timeout) => target.locator.scrollIntoViewIfNeeded({ timeout }))
        const png = yield* steps.idempotent((timeout) => target.locator.screenshot({ type: "png", scale: "css", timeout }))
        const size = pngSize(png)
        if (size === undefined) {
          return yield* new InternalError({ message: `screenshot ${target.ref}: the browser returned an image that is not a PNG` })
        }
        const shot: ElementScreenshot = { png, width: size.width, height: size.height }
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
    close,
    highlight,
    elementScreenshot,
    pdf
  } as const
}

/** Navigation, input and page inspection on playwright pages and resolved refs. Needs nothing. */
export class Actions extends Effect.Service<Actions>()("svc/Actions", {
  sync: makeActions
}) {}
