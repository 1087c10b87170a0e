import { BrowserUnavailable, Conflict, InternalError, InvalidRequest, NotFound } from "../../domain/errors.js"
import { classifyPlaywrightError, type FailureKind, type PlaywrightFailure } from "./failures.js"
import type { Runaway } from "./runaway.js"

// Messages a model can act on: a classified failure becomes the control API's error, naming the action, the
// ref and what to do next.

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
  | "back"
  | "forward"
  | "reload"
  | "text"
  | "value"
  | "scroll"
  | "mouse"
  | "drop"
  | "styles"

export type ActionError = InvalidRequest | NotFound | Conflict | BrowserUnavailable | InternalError

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
  /** evaluate, wait --fn: the agent's script was still running at the timeout, and was stopped (or not). */
  readonly runaway?: Runaway | undefined
}

const SNAPSHOT = "`svc browser snapshot --interactive`"
export const INVESTIGATE = "check `svc browser errors` and `svc browser requests`, then record a trace " +
  "(`svc browser trace start`, repeat the step, `svc browser trace stop`)"

export const formatDuration = (ms: number): string =>
  ms < 1_000 ? `${Math.round(ms)}ms` : `${Number((ms / 1_000).toFixed(1))}s`

const quoteList = (values: ReadonlyArray<string>): string => values.map((v) => JSON.stringify(v)).join(", ")

export const subject = (action: ActionName, ref: string | undefined, ctx: DescribeContext): string => {
  const what = ref === undefined
    ? ""
    : ` ${ref}${ctx.description !== undefined && ctx.description !== "" && ctx.description !== ref ? ` (${ctx.description})` : ""}`
  if (action === "drag") return ctx.part === "end" ? `drag onto${what}` : `drag from${what}`
  if (action === "navigate" && ctx.url !== undefined) return `navigate ${ctx.url}`
  if ((action === "back" || action === "forward") && ctx.url !== undefined) return `${action} to ${ctx.url}`
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
  ERR_TOO_MANY_REDIRECTS: "the site redirects in a loop",
  ERR_INVALID_AUTH_CREDENTIALS: "the site asks for HTTP credentials and none were given for it: " +
    "`svc browser set credentials <user> <pass> [--origin <its origin>]`"
}

/** Maps a classified failure onto the error the control API answers with. */
/**
 * Marks the failure of an action whose quick ref check could not tell (see refChecks.ts): nothing was done. A
 * property, not a set of instances: the runtime hands a failure on wrapped in a proxy that reads through.
 */
const UNCHECKED = Symbol.for("svc/uncheckedRef")

/** Whether an action failed only because its quick ref check could not tell (act again after the usual check). */
export const isUncheckedFailure = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { readonly [UNCHECKED]?: unknown })[UNCHECKED] === true

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
  // A state reported after the action waited its whole timeout for it to change.
  const still = (state: string) =>
    f.timedOut && ctx.timeoutMs !== undefined
      ? `after ${formatDuration(ctx.timeoutMs)} the element is still ${state}`
      : `the element is ${state}`
  const longer = `, or give it longer (\`--timeout <ms>\`)`

  if (ctx.runaway !== undefined) {
    const code = action === "wait" ? "the --fn function" : "the script"
    const ran = `${who}: ${code} ran past ${formatDuration(ctx.timeoutMs ?? 0)}`
    return new Conflict({
      message: ctx.runaway === "stopped"
        ? `${ran} and was stopped; the tab is usable. Make it return sooner (no endless loop), or give it longer ` +
          "with `--timeout <ms>`"
        : `${ran} and could not be stopped; the tab may not answer any more: close it (\`svc browser close ` +
          "<targetId>`, ids in `svc browser tabs`) and open the page again"
    })
  }
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
          : `${who}: ${still("not visible (hidden, zero-size or display:none)")}; take ${SNAPSHOT} to see ` +
            `what is visible, or scroll it into view (\`svc browser scrollintoview ${r}\`)`
      })
    case "covered":
      return new Conflict({
        message: `${who}: ${still(`covered by ${f.coveredBy ?? "another element"}`)}, which would receive ` +
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
        message: `${who}: ${still("disabled")}; do what enables it first (required fields, a checkbox to ` +
          `tick: take ${SNAPSHOT}), or wait for it (\`svc browser wait ${r} --enabled\`)${longer}, then ${INVESTIGATE}`
      })
    case "notEditable":
      return new Conflict({
        message: `${who}: ${still("read-only")}; type into an editable field (take ${SNAPSHOT}: textbox ` +
          `refs), or do what makes it editable first`
      })
    case "inert":
      return new Conflict({
        message: `${who}: ${still("inert")}: a modal dialog makes the rest of the page unreachable; close ` +
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
    case "dropRefused":
      return new Conflict({
        message: `${who}: the element does not take drops (the page did not accept the drag over it); drop onto the ` +
          `element that does (an upload area, an editor): take a snapshot (${SNAPSHOT}) to find it`
      })
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
    case "unchecked": {
      // Never shown on its own: the action's caller checks the ref the usual way and acts again.
      const e = new Conflict({ message: `${who}: the ref could not be checked as the action looked for its element; nothing was done` })
      Object.defineProperty(e, UNCHECKED, { value: true })
      return e
    }
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
