import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { BrowserContext, ConsoleMessage, Page, Request, Response, WebError } from "playwright-core"
import { Conflict, InternalError, InvalidRequest, NotFound } from "../../domain/errors.js"
import { makePageRegistry, observeContexts } from "../pages/PageRegistry.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import type { TabRef } from "../act/Refs.js"

// What each tab did since the gateway first saw it: console messages, uncaught errors and requests, in
// bounded rings (oldest dropped); the body of a recent response; and traces of the automation library.
//
// Listeners go on every page the library connection sees (PlaywrightSessions.onPage), synchronously when
// the page appears, so a tab's log starts when the gateway attaches, not when someone first asks. The logs
// survive navigations of the tab (like DevTools' "preserve log") and are freed when the tab closes.

// ---------------------------------------------------------------------------------------------------------
// Entries

/** debug < info (console.log is info) < warning < error. */
export type ConsoleLevel = "debug" | "info" | "warning" | "error"

export interface ConsoleEntry {
  readonly seq: number
  /** The console method: log, info, debug, warning, error, assert, trace, table, dir, count, timeEnd, ... */
  readonly type: string
  readonly level: ConsoleLevel
  readonly text: string
  /** Where the call was made; null when the browser did not say. Line and column are 0-based. */
  readonly location: { readonly url: string; readonly line: number; readonly column: number } | null
  /** ISO 8601. */
  readonly timestamp: string
}

export interface PageErrorEntry {
  readonly seq: number
  readonly name: string
  readonly message: string
  /** The first lines of the stack; null when the error had none. */
  readonly stack: string | null
  readonly timestamp: string
}

export interface RequestEntry {
  readonly seq: number
  readonly method: string
  readonly url: string
  /** document, stylesheet, image, media, font, script, fetch, xhr, websocket, other, ... */
  readonly resourceType: string
  /** pending: no response yet; finished: the body arrived; failed: see failure. */
  readonly state: "pending" | "finished" | "failed"
  /** The response status; null until the response arrives (or when the request failed before it). */
  readonly status: number | null
  /** Why the request failed (net::ERR_...), else null. */
  readonly failure: string | null
  /** From the request's start to the end of its response (or its failure); null while pending. */
  readonly durationMs: number | null
  /** When the request started, ISO 8601. */
  readonly timestamp: string
}

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

export interface TraceStarted {
  readonly profile: string
  readonly startedAt: string
  readonly screenshots: boolean
  readonly snapshots: boolean
}

export interface TraceFile {
  readonly path: string
  readonly bytes: number
}

export const CONSOLE_LIMIT = 500
export const ERRORS_LIMIT = 200
export const REQUESTS_LIMIT = 500
/** Tabs observed at once; beyond it the least recently used tab's log is dropped. */
export const MAX_OBSERVED_TABS = 256
/** Longest console text or error message kept per entry. */
export const MAX_ENTRY_TEXT = 8_000
export const MAX_URL_TEXT = 2_000
export const STACK_LINES = 8
export const DEFAULT_BODY_WAIT_MS = 5_000
export const MAX_BODY_WAIT_MS = 60_000
const BODY_FETCH_MS = 10_000
const TRACE_START_MS = 15_000
const TRACE_STOP_MS = 60_000

// ---------------------------------------------------------------------------------------------------------
// Pure parts

/** A bounded ring: the newest `capacity` items, each with an increasing sequence number from 1. */
export class Ring<A> {
  private readonly items: Array<A | undefined>
  private start = 0
  private count = 0
  private nextSeq = 1
  constructor(readonly capacity: number) {
    this.items = new Array<A | undefined>(capacity)
  }
  /** Adds an item built with its sequence number; the oldest is dropped when full. */
  push(make: (seq: number) => A): A {
    const item = make(this.nextSeq++)
    if (this.count < this.capacity) {
      this.items[(this.start + this.count) % this.capacity] = item
      this.count++
    } else {
      this.items[this.start] = item
      this.start = (this.start + 1) % this.capacity
    }
    return item
  }
  /** Oldest first. */
  toArray(): Array<A> {
    const out: Array<A> = []
    for (let i = 0; i < this.count; i++) out.push(this.items[(this.start + i) % this.capacity]!)
    return out
  }
  /** Newest first, stopping when visit returns true. */
  findNewest(visit: (a: A) => boolean): A | undefined {
    for (let i = this.count - 1; i >= 0; i--) {
      const item = this.items[(this.start + i) % this.capacity]!
      if (visit(item)) return item
    }
    return undefined
  }
  clear(): void {
    this.items.fill(undefined)
    this.start = 0
    this.count = 0
  }
  get size(): number {
    return this.count
  }
}

const LEVEL_RANK: Record<ConsoleLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 }

/** The level of a console method. */
export const levelOf = (type: string): ConsoleLevel => {
  switch (type) {
    case "debug":
      return "debug"
    case "warning":
    case "warn":
      return "warning"
    case "error":
    case "assert":
      return "error"
    default:
      return "info"
  }
}

/** A level as a person writes it (log and warn are accepted); undefined for anything else. */
export const parseLevel = (level: string): ConsoleLevel | undefined => {
  switch (level.trim().toLowerCase()) {
    case "debug":
    case "verbose":
      return "debug"
    case "info":
    case "log":
      return "info"
    case "warning":
    case "warn":
      return "warning"
    case "error":
      return "error"
    default:
      return undefined
  }
}

export const atOrAbove = (entry: { readonly level: ConsoleLevel }, min: ConsoleLevel) =>
  LEVEL_RANK[entry.level] >= LEVEL_RANK[min]

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

/** The request filter: a case-insensitive substring of the URL or the method. */
export const requestMatches = (entry: { readonly url: string; readonly method: string }, filter: string | undefined) => {
  if (filter === undefined || filter === "") return true
  const f = filter.toLowerCase()
  return entry.url.toLowerCase().includes(f) || entry.method.toLowerCase().includes(f)
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

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`)

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

// ---------------------------------------------------------------------------------------------------------
// Per-page log

interface RequestRecord {
  readonly seq: number
  readonly method: string
  readonly url: string
  readonly resourceType: string
  readonly timestamp: string
  readonly startedAt: number
  state: "pending" | "finished" | "failed"
  status: number | null
  failure: string | null
  durationMs: number | null
  response: Response | undefined
  /** The page log the record is in (to wake its waiters). */
  readonly log: PageLog
}

type ResponseWaiter = (record: RequestRecord) => void

interface PageLog {
  readonly console: Ring<ConsoleEntry>
  readonly errors: Ring<PageErrorEntry>
  readonly requests: Ring<RequestRecord>
  readonly waiters: Set<ResponseWaiter>
}

const nowIso = () => new Date().toISOString()

const isoOf = (ms: number) => {
  const d = new Date(ms)
  return Number.isFinite(d.getTime()) ? d.toISOString() : nowIso()
}

const newLog = (): PageLog => ({
  console: new Ring(CONSOLE_LIMIT),
  errors: new Ring(ERRORS_LIMIT),
  requests: new Ring(REQUESTS_LIMIT),
  waiters: new Set()
})

/** The page a request belongs to; undefined for a service worker's own requests. */
const pageOfRequest = (request: Request): Page | undefined => {
  try {
    return request.frame().page() ?? undefined
  } catch {
    return undefined
  }
}

/**
 * Listens on a browser context (its pages' events from their very start) and files each event in the log
 * of its page. Returns how to stop listening.
 */
const listenOnContext = (context: BrowserContext, logOf: (page: Page) => PageLog | undefined) => {
  const byRequest = new WeakMap<Request, RequestRecord>()

  const onConsole = (message: ConsoleMessage) => {
    const page = message.page()
    const log = page !== null ? logOf(page) : undefined
    if (log === undefined) return
    const type = message.type()
    const loc = message.location()
    let timestamp: string
    try {
      timestamp = isoOf(message.timestamp())
    } catch {
      timestamp = nowIso()
    }
    log.console.push((seq) => ({
      seq,
      type,
      level: levelOf(type),
      text: clip(message.text(), MAX_ENTRY_TEXT),
      location: loc !== undefined && loc.url !== "" ? { url: clip(loc.url, MAX_URL_TEXT), line: loc.line, column: loc.column } : null,
      timestamp
    }))
  }
  const onWebError = (webError: WebError) => {
    const page = webError.page()
    const log = page !== null ? logOf(page) : undefined
    if (log === undefined) return
    const error = webError.error()
    const stack = typeof error.stack === "string" && error.stack !== ""
      ? clip(error.stack.split("\n").slice(0, STACK_LINES).join("\n"), MAX_ENTRY_TEXT)
      : null
    log.errors.push((seq) => ({
      seq,
      name: typeof error.name === "string" && error.name !== "" ? error.name : "Error",
      message: clip(String(error.message), MAX_ENTRY_TEXT),
      stack,
      timestamp: nowIso()
    }))
  }
  const onRequest = (request: Request) => {
    const page = pageOfRequest(request)
    const log = page !== undefined ? logOf(page) : undefined
    if (log === undefined) return
    const record = log.requests.push((seq) => ({
      seq,
      method: request.method(),
      url: request.url(),
      resourceType: request.resourceType(),
      timestamp: nowIso(),
      startedAt: performance.now(),
      state: "pending",
      status: null,
      failure: null,
      durationMs: null,
      response: undefined,
      log
    }))
    byRequest.set(request, record)
  }
  const onResponse = (response: Response) => {
    const record = byRequest.get(response.request())
    if (record === undefined) return
    record.status = response.status()
    record.response = response
    for (const waiter of [...record.log.waiters]) waiter(record)
  }
  const duration = (request: Request, record: RequestRecord) => {
    const timing = request.timing()
    return timing.responseEnd > 0 ? Math.round(timing.responseEnd) : Math.round(performance.now() - record.startedAt)
  }
  const onFinished = (request: Request) => {
    const record = byRequest.get(request)
    if (record === undefined) return
    record.state = "finished"
    record.durationMs = duration(request, record)
  }
  const onFailed = (request: Request) => {
    const record = byRequest.get(request)
    if (record === undefined) return
    record.state = "failed"
    record.failure = request.failure()?.errorText ?? "failed"
    record.durationMs = Math.round(performance.now() - record.startedAt)
  }

  context.on("console", onConsole)
  context.on("weberror", onWebError)
  context.on("request", onRequest)
  context.on("response", onResponse)
  context.on("requestfinished", onFinished)
  context.on("requestfailed", onFailed)
  return () => {
    context.off("console", onConsole)
    context.off("weberror", onWebError)
    context.off("request", onRequest)
    context.off("response", onResponse)
    context.off("requestfinished", onFinished)
    context.off("requestfailed", onFailed)
  }
}

const publicRequest = (r: RequestRecord): RequestEntry => ({
  seq: r.seq,
  method: r.method,
  url: r.url,
  resourceType: r.resourceType,
  state: r.state,
  status: r.status,
  failure: r.failure,
  durationMs: r.durationMs,
  timestamp: r.timestamp
})

const errorText = (e: unknown) => (e instanceof Error ? e.message.split("\n")[0]! : String(e))

const withTimeout = <A>(p: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
    p.then(
      (a) => {
        clearTimeout(timer)
        resolve(a)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e)
      }
    )
  })

/** 3xx with a Location: the browser followed it, and such a response has no body to give. */
const isRedirect = (r: RequestRecord) => r.status !== null && r.status >= 300 && r.status < 400 && r.status !== 304

// ---------------------------------------------------------------------------------------------------------
// The service

export class Observe extends Effect.Service<Observe>()("svc/Observe", {
  scoped: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const registry = makePageRegistry<PageLog>({
      create: () => {
        const log = newLog()
        return { state: log, detach: () => log.waiters.clear() }
      },
      maxPages: MAX_OBSERVED_TABS,
      targetIdOf: sessions.targetIdOf
    })
    yield* observeContexts(sessions, registry, listenOnContext)

    /** Makes sure the page is observed and known as this tab (call before reading a tab just connected). */
    const ensureAttached = (tab: TabRef, page: Page) => Effect.sync(() => void registry.attach(tab, page))

    const console = (tab: TabRef, options: { readonly level?: string | undefined } = {}) =>
      Effect.gen(function*() {
        let min: ConsoleLevel = "debug"
        if (options.level !== undefined) {
          const parsed = parseLevel(options.level)
          if (parsed === undefined) {
            return yield* new InvalidRequest({
              message: `unknown console level ${JSON.stringify(options.level)}: use debug, info (or log), warning (or warn) ` +
                "or error; entries at that level and above are shown"
            })
          }
          min = parsed
        }
        const log = yield* registry.find(tab)
        if (log === undefined) return [] as ReadonlyArray<ConsoleEntry>
        return log.console.toArray().filter((e) => atOrAbove(e, min)) as ReadonlyArray<ConsoleEntry>
      })

    const errors = (tab: TabRef, options: { readonly clear?: boolean | undefined } = {}) =>
      Effect.gen(function*() {
        const log = yield* registry.find(tab)
        if (log === undefined) return [] as ReadonlyArray<PageErrorEntry>
        const out = log.errors.toArray()
        if (options.clear === true) log.errors.clear()
        return out as ReadonlyArray<PageErrorEntry>
      })

    /** The tab's requests (filtered); clear empties the whole log after reading, not only the matches. */
    const requests = (
      tab: TabRef,
      options: { readonly filter?: string | undefined; readonly clear?: boolean | undefined } = {}
    ) =>
      Effect.gen(function*() {
        const log = yield* registry.find(tab)
        if (log === undefined) return [] as ReadonlyArray<RequestEntry>
        const out = log.requests.toArray().filter((r) => requestMatches(r, options.filter)).map(publicRequest)
        if (options.clear === true) log.requests.clear()
        return out as ReadonlyArray<RequestEntry>
      })

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
    const nextResponse = (log: PageLog, page: Page, matches: (url: string) => boolean, ms: number) =>
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

    const responseBody = (
      tab: TabRef,
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
        const log = registry.attach(tab, page)
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
      }).pipe(Effect.withSpan("Observe.responseBody", { attributes: { url: options.url } }))

    // Traces: one per profile (the page's browser context), started and stopped through the library.
    const traces = new Map<string, { readonly context: BrowserContext; readonly started: TraceStarted }>()

    const contextAlive = (context: BrowserContext) => context.browser()?.isConnected() ?? false

    const traceStart = (
      profile: string,
      page: Page,
      options: { readonly screenshots?: boolean | undefined; readonly snapshots?: boolean | undefined } = {}
    ) =>
      Effect.gen(function*() {
        const running = traces.get(profile)
        if (running !== undefined && contextAlive(running.context)) {
          return yield* new Conflict({
            message: `a trace of profile "${profile}" is already running (since ${running.started.startedAt}); stop it ` +
              "first with `svc browser trace stop`"
          })
        }
        traces.delete(profile)
        const context = page.context()
        const started: TraceStarted = {
          profile,
          startedAt: nowIso(),
          screenshots: options.screenshots ?? true,
          snapshots: options.snapshots ?? true
        }
        // Reserve the slot before the first await so a concurrent start is the Conflict, not a library error.
        traces.set(profile, { context, started })
        yield* Effect.tryPromise({
          try: () =>
            withTimeout(
              context.tracing.start({ screenshots: started.screenshots, snapshots: started.snapshots, sources: false }),
              TRACE_START_MS,
              "starting the trace"
            ),
          catch: (e) => {
            traces.delete(profile)
            const text = errorText(e)
            return /already started/i.test(text)
              ? new Conflict({
                message: `a trace is already recording in this browser (started by another client of the automation ` +
                  `library: ${text}); stop it there, or reconnect the gateway to the browser`
              })
              : new InternalError({ message: `could not start a trace of profile "${profile}": ${text}` })
          }
        })
        return started
      })

    const traceStop = (profile: string, _page: Page, destPath: string) =>
      Effect.gen(function*() {
        const running = traces.get(profile)
        if (running === undefined) {
          return yield* new Conflict({
            message: `no trace of profile "${profile}" is running; start one with \`svc browser trace start\`, do the ` +
              "actions to record, then stop it"
          })
        }
        traces.delete(profile)
        if (!contextAlive(running.context)) {
          return yield* new Conflict({
            message: `the trace of profile "${profile}" started at ${running.started.startedAt} was lost: the connection to ` +
              "the browser closed since (browser restarted or stopped). Start a new trace."
          })
        }
        return yield* Effect.tryPromise({
          try: async () => {
            await fs.mkdir(path.dirname(destPath), { recursive: true, mode: 0o700 })
            await withTimeout(running.context.tracing.stop({ path: destPath }), TRACE_STOP_MS, "writing the trace")
            const stat = await fs.stat(destPath)
            return { path: destPath, bytes: stat.size } satisfies TraceFile
          },
          catch: (e) => new InternalError({ message: `could not write the trace of profile "${profile}" to ${destPath}: ${errorText(e)}` })
        })
      })

    /** Whether a trace of the profile is recording (for status). */
    const traceRunning = (profile: string) =>
      Effect.sync(() => {
        const running = traces.get(profile)
        return running !== undefined && contextAlive(running.context) ? running.started : undefined
      })

    return { ensureAttached, console, errors, requests, responseBody, traceStart, traceStop, traceRunning } as const
  }),
  dependencies: [PlaywrightSessions.Default]
}) {}
