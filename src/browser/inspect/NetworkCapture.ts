import type { BrowserContext, Page, Request, Response } from "playwright-core"
import { userRegex } from "../../platform/userRegex.js"
import type { Ring } from "./Bounded.js"

// A tab's requests: each one recorded when it starts, then updated by its response, its end or its
// failure; whoever waits for a response of the page is woken when one arrives.

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

export const REQUESTS_LIMIT = 500

/** A request as it is kept: the public entry's fields while they change, and the response for its body. */
export interface RequestRecord {
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
  /** The library's request, for its headers and posted data (requestDetail). */
  readonly request: Request
  /** The page log the record is in (to wake its waiters). */
  readonly log: NetworkLog
}

export type ResponseWaiter = (record: RequestRecord) => void

/** The part of a page's log this file fills. */
export interface NetworkLog {
  readonly requests: Ring<RequestRecord>
  readonly waiters: Set<ResponseWaiter>
}

/**
 * The request filter: a case-insensitive substring of the URL or the method, or a regular expression the URL
 * matches (as Playwright MCP reads its filter: `/api/.*user`, any case; a bad one matches as text only).
 * Made once for a listing, not per entry.
 */
export const requestMatcher = (filter: string | undefined) => {
  if (filter === undefined || filter === "") return (_entry: { readonly url: string; readonly method: string }) => true
  const f = filter.toLowerCase()
  let regex: RegExp | undefined
  try {
    regex = userRegex(filter, "i")
  } catch {
    regex = undefined
  }
  return (entry: { readonly url: string; readonly method: string }) =>
    entry.url.toLowerCase().includes(f) || entry.method.toLowerCase().includes(f) || regex?.test(entry.url) === true
}

/** What a page loads to show itself: left out of a request list that asks for no static resources. */
const STATIC_TYPES: ReadonlySet<string> = new Set(["image", "font", "stylesheet", "script", "media", "manifest", "texttrack"])

/** A static resource that loaded fine (a failed or pending one is never left out: it may be why a page breaks). */
export const isLoadedStatic = (entry: { readonly resourceType: string; readonly state: string; readonly status: number | null }) =>
  STATIC_TYPES.has(entry.resourceType) && entry.state === "finished" && entry.status !== null && entry.status < 400

/** The page a request belongs to; undefined for a service worker's own requests. */
const pageOfRequest = (request: Request): Page | undefined => {
  try {
    return request.frame().page() ?? undefined
  } catch {
    return undefined
  }
}

/** Records each request of the context's pages in its page's log; returns how to stop listening. */
export const listenNetwork = (context: BrowserContext, logOf: (page: Page) => NetworkLog | undefined) => {
  const byRequest = new WeakMap<Request, RequestRecord>()

  const onRequest = (request: Request) => {
    const page = pageOfRequest(request)
    const log = page !== undefined ? logOf(page) : undefined
    if (log === undefined) return
    const record = log.requests.push((seq) => ({
      seq,
      method: request.method(),
      url: request.url(),
      resourceType: request.resourceType(),
      timestamp: new Date().toISOString(),
      startedAt: performance.now(),
      state: "pending",
      status: null,
      failure: null,
      durationMs: null,
      response: undefined,
      request,
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

  context.on("request", onRequest)
  context.on("response", onResponse)
  context.on("requestfinished", onFinished)
  context.on("requestfailed", onFailed)
  return () => {
    context.off("request", onRequest)
    context.off("response", onResponse)
    context.off("requestfinished", onFinished)
    context.off("requestfailed", onFailed)
  }
}

export const publicRequest = (r: RequestRecord): RequestEntry => ({
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

/** 3xx with a Location: the browser followed it, and such a response has no body to give. */
export const isRedirect = (r: RequestRecord) => r.status !== null && r.status >= 300 && r.status < 400 && r.status !== 304

/** One request in full: its entry, the headers it was sent with and answered with, and the data it posted. */
export interface RequestDetail extends RequestEntry {
  readonly requestHeaders: Record<string, string>
  /** null until the response arrives (or when the request failed before it). */
  readonly responseHeaders: Record<string, string> | null
  /** The request's body (a form, JSON), cut at POST_DATA_LIMIT characters; null when it has none. */
  readonly postData: string | null
}

/** Characters of posted data shown; longer data ends with a marker saying how much there was. */
export const POST_DATA_LIMIT = 20_000
/** How long the browser's full header lists are waited for before the library's own are given. */
const HEADERS_WAIT_MS = 2_000

const withinWait = <A>(p: Promise<A>, fallback: () => A): Promise<A> =>
  Promise.race([p.catch(fallback), new Promise<A>((resolve) => setTimeout(() => resolve(fallback()), HEADERS_WAIT_MS).unref())])

/** The record in full: the headers as the browser sent and received them (cookies included), and posted data. */
export const requestDetail = async (r: RequestRecord): Promise<RequestDetail> => {
  const requestHeaders = await withinWait(r.request.allHeaders(), () => r.request.headers())
  const response = r.response
  const responseHeaders = response !== undefined ? await withinWait(response.allHeaders(), () => response.headers()) : null
  const data = r.request.postData()
  const postData = data === null
    ? null
    : data.length <= POST_DATA_LIMIT
    ? data
    : `${data.slice(0, POST_DATA_LIMIT)}… [truncated: ${POST_DATA_LIMIT} of ${data.length} characters shown]`
  return { ...publicRequest(r), requestHeaders, responseHeaders, postData }
}
