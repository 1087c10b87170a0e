import { Effect } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import { InvalidRequest, NotFound } from "../../domain/errors.js"
import { makePageRegistry, observeContexts } from "../pages/PageRegistry.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import type { TabRef } from "../act/Refs.js"
import { Ring, sequence } from "./Bounded.js"
import {
  atOrAbove,
  CONSOLE_LIMIT,
  type ConsoleEntry,
  type ConsoleLevel,
  type ConsoleLog,
  ERRORS_LIMIT,
  listenConsole,
  type PageErrorEntry,
  parseLevel
} from "./ConsoleCapture.js"
import {
  isLoadedStatic,
  listenNetwork,
  type NetworkLog,
  publicRequest,
  requestDetail,
  type RequestEntry,
  REQUESTS_LIMIT,
  requestMatcher
} from "./NetworkCapture.js"
import { findResponseBody, recordBody } from "./ResponseBodies.js"
import { makeTraces } from "./Traces.js"

// What each tab did since the gateway first saw it: console messages, uncaught errors and requests, in
// bounded rings (oldest dropped); the body of a recent response; and traces of the automation library.
//
// Listeners go on every page the library connection sees (PlaywrightSessions.onPage), synchronously when
// the page appears, so a tab's log starts when the gateway attaches, not when someone first asks. The logs
// survive navigations of the tab (like DevTools' "preserve log") and are freed when the tab closes.
//
// The pieces: ConsoleCapture and NetworkCapture fill a page's log, ResponseBodies reads from it, Traces
// keeps the traces; this service ties them to tabs.

/** Tabs observed at once; beyond it the least recently used tab's log is dropped. */
export const MAX_OBSERVED_TABS = 256

/** Everything kept for one page. */
interface PageLog extends ConsoleLog, NetworkLog {}

const newLog = (): PageLog => {
  // Console messages and page errors are numbered in one sequence: the order they came in, across both.
  const logged = sequence()
  return {
    console: new Ring(CONSOLE_LIMIT, logged),
    errors: new Ring(ERRORS_LIMIT, logged),
    requests: new Ring(REQUESTS_LIMIT),
    waiters: new Set()
  }
}

/** Files the events of a browser context's pages in their logs; returns how to stop listening. */
const listenOnContext = (context: BrowserContext, logOf: (page: Page) => PageLog | undefined) => {
  const stopConsole = listenConsole(context, logOf)
  const stopNetwork = listenNetwork(context, logOf)
  return () => {
    stopConsole()
    stopNetwork()
  }
}

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
      options: {
        readonly filter?: string | undefined
        readonly static?: boolean | undefined
        readonly clear?: boolean | undefined
      } = {}
    ) =>
      Effect.gen(function*() {
        const log = yield* registry.find(tab)
        if (log === undefined) return [] as ReadonlyArray<RequestEntry>
        const matches = requestMatcher(options.filter)
        const out = log.requests.toArray()
          .filter((r) => matches(r) && (options.static !== false || !isLoadedStatic(r)))
          .map(publicRequest)
        if (options.clear === true) log.requests.clear()
        return out as ReadonlyArray<RequestEntry>
      })

    /** A request of the tab's log by its `seq` (as `requests` lists it). */
    const recordOf = (tab: TabRef, seq: number) =>
      Effect.gen(function*() {
        const record = (yield* registry.find(tab))?.requests.toArray().find((r) => r.seq === seq)
        if (record === undefined) {
          return yield* new NotFound({
            message: `no request #${seq} in this tab's log (it keeps the latest ${REQUESTS_LIMIT}, from when the gateway ` +
              "attached): list them with `svc browser requests` and take the #n that ends a request's line"
          })
        }
        return record
      })

    /** One request of the tab's log in full. */
    const request = (tab: TabRef, seq: number) =>
      Effect.flatMap(recordOf(tab, seq), (record) => Effect.promise(() => requestDetail(record)))

    /** The body of one request of the tab's log. */
    const responseBodyOf = (tab: TabRef, seq: number, maxChars: number) =>
      Effect.flatMap(recordOf(tab, seq), (record) => recordBody(record, maxChars))

    const responseBody = (
      tab: TabRef,
      page: Page,
      options: { readonly url: string; readonly maxChars: number; readonly timeoutMs?: number | undefined }
    ) =>
      findResponseBody(() => registry.attach(tab, page), page, options).pipe(
        Effect.withSpan("Observe.responseBody", { attributes: { url: options.url } })
      )

    const { traceRunning, traceStart, traceStop } = makeTraces()

    return { ensureAttached, console, errors, requests, request, responseBody, responseBodyOf, traceStart, traceStop, traceRunning } as const
  }),
  dependencies: [PlaywrightSessions.Default]
}) {}
