import { Effect } from "effect"
import type { Page, Response } from "playwright-core"
import { Conflict, InvalidRequest, NotFound } from "../../domain/errors.js"
import { clip, MAX_URL_TEXT } from "./Bounded.js"
import { isRedirect, type NetworkLog, type RequestRecord, type ResponseWaiter } from "./NetworkCapture.js"
import { errorText, withTimeout } from "../pages/promises.js"

// The body of a recent response of a tab, found by a URL glob: the newest one already seen, else the next
// one within a wait; text as utf8, anything else as base64, cut at a character cap.

export interface ResponseBody {
  readonly url: string
  readonly status: number
  readonly contentType: string | null
  /** utf8 for text; base64 for a binary body (the body field is then its base64 text). */
  readonly encoding: "utf8" | "base64"
  /** At most maxChars characters, followed by a marker line when truncated. */
  readonly body: string
  readonly truncated: boolean
  /** The size of the whole body in bytes. */
  readonly bytes: number
}

export const DEFAULT_BODY_WAIT_MS = 5_000
export const MAX_BODY_WAIT_MS = 60_000
const BODY_FETCH_MS = 10_000

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")

/** `*` matches within one path segment (no `/`), `**` across segments; everything else literally. */
export const globToRegExp = (glob: string): RegExp => {
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        out += ".*"
        i++
        while (glob[i + 1] === "*") i++
      } else {
        out += "[^/]*"
      }
    } else {
      out += escapeRegExp(c)
    }
  }
  return new RegExp(`^${out}$`, "i")
}

/**
 * Whether a URL matches a response glob. A pattern with `*` must match the whole URL, or the URL without
 * its query and fragment (`**\/api/items` matches `.../api/items?page=2`); a pattern without `*` matches
 * any URL that contains it.
 */
export const makeUrlMatcher = (glob: string): ((url: string) => boolean) => {
  if (!glob.includes("*")) {
    const needle = glob.toLowerCase()
    return (url) => url.toLowerCase().includes(needle)
  }
  const re = globToRegExp(glob)
  return (url) => {
    if (re.test(url)) return true
    const bare = url.replace(/[?#].*$/, "")
    return bare !== url && re.test(bare)
  }
}

/** The marker line ending a truncated body. */
export const truncationMarker = (shown: number, total: number) => `… [truncated: ${shown} of ${total} characters]`

/** The first maxChars characters (never half a surrogate pair), then the marker line when cut. */
export const truncateText = (text: string, maxChars: number): { text: string; truncated: boolean } => {
  if (text.length <= maxChars) return { text, truncated: false }
  let end = maxChars
  const last = text.charCodeAt(end - 1)
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--
  return { text: `${text.slice(0, end)}\n${truncationMarker(end, text.length)}`, truncated: true }
}

const TEXTUAL = /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|csv|yaml|x-yaml|svg\+xml)\b|^application\/(json|xml|javascript|ecmascript)/i

/** Whether a body is text: by its content type, else by looking for NUL bytes and invalid UTF-8. */
export const isTextBody = (contentType: string | null, body: Uint8Array): boolean => {
  if (contentType !== null && contentType !== "") {
    if (TEXTUAL.test(contentType)) return true
    if (!/^application\/octet-stream/i.test(contentType)) return false
  }
  const head = body.subarray(0, 4_096)
  if (head.includes(0)) return false
  try {
    // stream: a character cut at the end of the sample is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: head.byteLength < body.byteLength })
    return true
  } catch {
    return false
  }
}

const readBody = (record: RequestRecord, response: Response, maxChars: number) =>
  Effect.tryPromise({
    try: () => withTimeout(response.body(), BODY_FETCH_MS, "reading the response body"),
    catch: (e) =>
      new Conflict({
        message: `the body of ${record.method} ${clip(record.url, MAX_URL_TEXT)} (status ${record.status}) is no longer ` +
          `available from the browser (${errorText(e)}); bodies are kept only for the current document, so ` +
          "repeat the action that makes the request and ask again"
      })
  }).pipe(Effect.map((buffer): ResponseBody => {
    const headers = response.headers()
    const contentType = headers["content-type"] ?? null
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    const text = isTextBody(contentType, bytes)
    const whole = text ? buffer.toString("utf8") : buffer.toString("base64")
    const cut = truncateText(whole, maxChars)
    return {
      url: record.url,
      status: response.status(),
      contentType,
      encoding: text ? "utf8" : "base64",
      body: cut.text,
      truncated: cut.truncated,
      bytes: buffer.byteLength
    }
  }))

/** The next matching response of the page, or undefined after ms (or when the page closes). */
const nextResponse = (log: NetworkLog, page: Page, matches: (url: string) => boolean, ms: number) =>
  Effect.async<RequestRecord | undefined>((resume) => {
    let done = false
    const finish = (r: RequestRecord | undefined) => {
      if (done) return
      done = true
      clearTimeout(timer)
      log.waiters.delete(waiter)
      page.off("close", onClose)
      resume(Effect.succeed(r))
    }
    const waiter: ResponseWaiter = (r) => {
      if (matches(r.url) && !isRedirect(r)) finish(r)
    }
    const onClose = () => finish(undefined)
    const timer = setTimeout(() => finish(undefined), ms)
    log.waiters.add(waiter)
    page.once("close", onClose)
    return Effect.sync(() => finish(undefined))
  })

/**
 * The body of the newest matching response of the page, or of the next one within the wait. `attach` gives
 * the page's log once the options are found sound (undefined: the tab has closed).
 */
export const findResponseBody = (
  attach: () => NetworkLog | undefined,
  page: Page,
  options: { readonly url: string; readonly maxChars: number; readonly timeoutMs?: number | undefined }
) =>
  Effect.gen(function*() {
    if (options.url.trim() === "") {
      return yield* new InvalidRequest({ message: "the URL pattern is empty: give a glob such as **/api/items* or a part of the URL" })
    }
    if (!Number.isInteger(options.maxChars) || options.maxChars < 1) {
      return yield* new InvalidRequest({ message: `maxChars must be a whole number of at least 1 (got ${options.maxChars})` })
    }
    const waitMs = Math.min(Math.max(options.timeoutMs ?? DEFAULT_BODY_WAIT_MS, 0), MAX_BODY_WAIT_MS)
    const log = attach()
    if (log === undefined) {
      return yield* new Conflict({ message: "the tab was closed; pick an open tab (`svc browser tabs`)" })
    }
    const matches = makeUrlMatcher(options.url)
    const seen = log.requests.findNewest((r) => r.response !== undefined && !isRedirect(r) && matches(r.url))
    const record = seen ?? (yield* nextResponse(log, page, matches, waitMs))
    if (record === undefined || record.response === undefined) {
      const recent: Array<string> = []
      log.requests.findNewest((r) => {
        if (!recent.includes(r.url)) recent.push(clip(r.url, 200))
        return recent.length >= 8
      })
      return yield* new NotFound({
        message: `no response whose URL matches ${JSON.stringify(options.url)} was seen on this tab, and none came ` +
          `within ${waitMs} ms. ` +
          (recent.length > 0
            ? `Recent URLs, newest first: ${recent.join(", ")}. `
            : "No requests have been seen on this tab since the gateway attached. ") +
          "Patterns: * stays within a path segment, ** crosses segments, a pattern without * matches any URL containing it."
      })
    }
    return yield* readBody(record, record.response, options.maxChars)
  })

/** The body of one request of the log (by its seq, found already); one that has no response says so. */
export const recordBody = (record: RequestRecord, maxChars: number) =>
  record.response === undefined
    ? Effect.fail(
      new Conflict({
        message: `#${record.seq} ${record.method} ${clip(record.url, MAX_URL_TEXT)} has ${
          record.state === "failed" ? `no response: it failed (${record.failure ?? "?"})` : "no response yet: ask again once it has one"
        }`
      })
    )
    : readBody(record, record.response, maxChars)
