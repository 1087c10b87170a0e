// Reading playwright's errors: the message and its call log say what state the element was last seen in,
// which decides whether waiting longer can help and what the agent is told.

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
  | "dropRefused"
  | "wrongElement"
  | "closed"
  | "navigated"
  | "network"
  | "script"
  | "badSelector"
  | "unknownKey"
  | "pdfUnsupported"
  | "timeout"
  | "unchecked"
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
    // svc's checking lookup answers or fails at once: never having answered, the page was too busy to run it,
    // which says nothing of the element (the usual check then says so). Only the engine's own selector: a
    // guarded element's attribute selector (`[data-svc-ref="…"]`) that found nothing is an element gone.
    return { ...base, kind: /(?<![\w-])svc-ref=/.test(waiting) ? "unchecked" : "notFound" }
  }
  return { ...base, kind: "timeout" }
}

/** The name and whole message of whatever was thrown (an Error or an error-like object). */
export const errorParts = (error: unknown): { name: string; message: string } => {
  if (error instanceof Error) return { name: error.name, message: error.message }
  if (typeof error === "object" && error !== null && "message" in error) {
    const e = error as { name?: unknown; message?: unknown }
    return { name: typeof e.name === "string" ? e.name : "Error", message: String(e.message) }
  }
  return { name: "Error", message: String(error) }
}

/** Reads a playwright error (its message and call log) into the state it describes. */
export const classifyPlaywrightError = (error: unknown): PlaywrightFailure => {
  const { message: raw, name } = errorParts(error)
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

  // svc's check of a ref as the action looked for its element (refChecks.ts): it could not tell, and nothing
  // was done (also when the page's worlds were set up before the check was registered).
  if (/svc-ref:unchecked|Unknown engine "svc-ref"/.test(firstLine)) return { ...base, kind: "unchecked" }
  const strict = /strict mode violation: .* resolved to (\d+) elements/.exec(message)
  if (strict) return { ...base, kind: "strict", count: Number(strict[1]) }
  if (/Target page, context or browser has been closed|Browser has been closed|Target closed|browser has disconnected/i.test(message)) {
    return { ...base, kind: "closed" }
  }
  if (/Execution context was destroyed|Frame was detached|frame got detached|interrupted by another navigation/i.test(firstLine)) {
    return { ...base, kind: "navigated" }
  }
  if (/Element is not attached to the DOM|Node is detached|element is detached|svc-ref:gone/i.test(firstLine)) {
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
  // A drop whose target's dragover did not take it (Playwright's locator.drop).
  if (/did not accept the drop/i.test(firstLine)) return { ...base, kind: "dropRefused" }
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

/**
 * States that more waiting will not fix: the element is no longer on the page at all, or was detached from it
 * while the action ran (the ref check passed, so it was removed since; a ref names that element, never a
 * successor, so it cannot come back). Anything else (hidden, covered, disabled, read-only, moving, options
 * still loading) may change while the action waits, so it is waited out up to the action's timeout and
 * reported only then.
 */
const REPORT_AT_ONCE: ReadonlySet<FailureKind> = new Set<FailureKind>(["notFound", "detached", "unchecked"])

/** Whether a failure of the short attempt is worth a second, patient attempt. */
export const worthWaiting = (f: PlaywrightFailure): boolean => f.timedOut && !REPORT_AT_ONCE.has(f.kind)
