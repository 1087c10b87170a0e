import { Effect, Layer, Option, type Scope } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core"
import { BrowserUnavailable, NotFound, NotImplemented } from "../../domain/errors.js"
import type { CdpEndpoint } from "../cdp/endpoints.js"
import { redactSecrets } from "../../domain/redact.js"
import { LocalRelay } from "../relay/LocalRelay.js"
import { makeFrameWorlds, makeLocalFrameWorlds } from "./frameWorld.js"
import { type OpenedTab, type OpenedTabs, trackOpenedTabs } from "./openedTabs.js"
import { openPageSession, type PageInfo, sendOnPage } from "./pageSession.js"
import { connectLibrary, rawSendsOf } from "./connectLibrary.js"
import { makeRoundTrips } from "./roundTrips.js"
import { errorText, untilWoken, withTimeout } from "./promises.js"

// The automation library (playwright-core), loaded at first use and never at start-up, with one library
// connection (connectOverCDP) per profile. Pages are matched to CDP targetIds so the rest of the gateway
// keeps speaking targetIds, and each page carries a counter of its main frame's cross-document navigations,
// which is what makes refs from an older document stale.

type PlaywrightModule = typeof import("playwright-core")

/** What every automation call answers (501) when this gateway build cannot load the library. */
export const AUTOMATION_UNAVAILABLE_MESSAGE =
  "the automation library (Playwright) is unavailable in this gateway build, so navigate, act, AI and role " +
  "snapshots, element screenshots and PDF cannot run. Install the full library package (`npm install playwright`, " +
  "not the core-only package) where the gateway runs, then restart the gateway (`svc gateway run`)."

export interface PlaywrightOptions {
  /** Loads the library, throwing when it cannot. Tests pass one that throws to get the 501 path. */
  readonly load?: () => PlaywrightModule
  /** How long page() waits for a tab that was just opened to show up in the library. Default 3 s. */
  readonly attachWaitMs?: number
}

/** Timings of the last connect and page lookup of a profile, for status and benchmarks. */
export interface PlaywrightTimings {
  readonly connectMs: number | undefined
  readonly lookupMs: number | undefined
  readonly connectedAt: string | undefined
}

declare const __filename: string | undefined

/** Where module resolution starts: this file in the source tree, or the bundle under dist/. */
const here = (): string => {
  if (typeof __filename === "string") return __filename
  return path.join(process.cwd(), "package.json")
}

/** playwright-core first (our dependency); the full `playwright` package re-exports the same API. */
const defaultLoad = (): PlaywrightModule => {
  const require = createRequire(here())
  try {
    return require("playwright-core") as PlaywrightModule
  } catch (first) {
    try {
      return require("playwright") as PlaywrightModule
    } catch {
      throw first
    }
  }
}

interface Connection {
  readonly browser: Browser
  readonly url: string
  readonly byTarget: Map<string, Page>
  readonly connectMs: number
  readonly connectedAt: string
  /** A browser-level session, to ask about a target without attaching to every page. */
  readonly browserSession: Promise<CDPSession>
  /** The tabs each tab opened, once discovery is on (see openedTabs.ts). */
  opened?: OpenedTabs | undefined
}

/**
 * Called once for every page a profile's connection sees: those open when it connects and those opened
 * later, synchronously when the library first reports the page, so listeners it adds miss no event.
 */
export type PageObserver = (profile: string, page: Page) => void

/** Called once for every browser context of a profile's connection, before the context's pages. */
export type ContextObserver = (profile: string, context: BrowserContext) => void

/**
 * Runs in page() once a tab's page is found, before it is handed out: state kept per tab across a re-made
 * connection (emulation) is put back on a new page object here. Quick when there is nothing to do.
 */
export type PageGate = (profile: string, targetId: string, page: Page) => Effect.Effect<void>

/**
 * Told when the gateway lets go of a profile's browser on purpose (disconnect: the profile stopped or
 * deleted, the gateway shutting down), not when a connection merely drops and will be made again.
 */
export type ReleaseObserver = (profile: string) => void

/**
 * The browser names a page without a title after its URL: a title that may be that (empty, a part of the URL,
 * or one word with `:` or `/` in it) is read from the page instead.
 */
export const mayBeUrlTitle = (title: string, url: string) =>
  title === "" || url.includes(title) || (!/\s/.test(title) && /[:/]/.test(title))

export const makePlaywrightSessions = (options: PlaywrightOptions = {}) =>
  Effect.gen(function*() {
    const load = options.load ?? defaultLoad
    // The relay of this gateway, reached without a socket (absent where the sessions are built alone).
    const localRelay = yield* Effect.serviceOption(LocalRelay)
    const attachWaitMs = options.attachWaitMs ?? 3_000

    let library: { readonly ok: PlaywrightModule } | { readonly error: string } | undefined

    /** The library, loaded once; a build without it fails every call with the 501. */
    const pw = Effect.gen(function*() {
      if (library === undefined) {
        try {
          library = { ok: load() }
        } catch (e) {
          library = { error: errorText(e) }
          yield* Effect.logWarning(`automation library unavailable: ${library.error}`)
        }
      }
      if ("ok" in library) return library.ok
      return yield* new NotImplemented({ message: AUTOMATION_UNAVAILABLE_MESSAGE })
    })

    /** Loads the library now (a few hundred ms of this thread), so that the first call that needs it does not. */
    const preload: Effect.Effect<void> = Effect.ignore(pw)

    const connections = new Map<string, Connection>()
    const locks = new Map<string, Effect.Semaphore>()
    const lockOf = (profile: string) => {
      let lock = locks.get(profile)
      if (lock === undefined) {
        lock = Effect.unsafeMakeSemaphore(1)
        locks.set(profile, lock)
      }
      return lock
    }
    const timings = new Map<string, { connectMs?: number; lookupMs?: number; connectedAt?: string }>()
    const timingOf = (profile: string) => {
      let t = timings.get(profile)
      if (t === undefined) {
        t = {}
        timings.set(profile, t)
      }
      return t
    }

    /** Page → its target and navigation counter; the promise dedupes concurrent lookups of one page. */
    const infos = new WeakMap<Page, PageInfo>()
    const pending = new WeakMap<Page, Promise<PageInfo | undefined>>()

    const describePage = (page: Page): Promise<PageInfo | undefined> => {
      const known = infos.get(page)
      if (known !== undefined) return Promise.resolve(known)
      let p = pending.get(page)
      if (p === undefined) {
        p = openPageSession(page, rawSendsOf(page.context().browser())).then((info) => {
          infos.set(page, info)
          return info
        }).catch(() => {
          // A page that closes while we look is simply not a match; anything else may be retried.
          pending.delete(page)
          return undefined
        })
        pending.set(page, p)
      }
      return p
    }

    /** Observers of every page (onPage) and context (onContext); live connections are replayed to new ones. */
    const observers = new Set<PageObserver>()
    const contextObservers = new Set<ContextObserver>()
    const notify = <A>(observer: (profile: string, a: A) => void, profile: string, a: A) => {
      try {
        observer(profile, a)
      } catch {
        // An observer's failure must not break the connection or the other observers.
      }
    }
    /** Lookups waiting for a tab to reach the library, woken when any page does. */
    const arrivals = new Set<() => void>()
    /** How many pages have reached the library so far: a lookup that saw this move during its scan looks again at once. */
    let arrived = 0
    /** Waits for the next page to arrive, unless one arrived since the count was `seen`. */
    const nextArrival = (seen: number, ms: number) => arrived !== seen ? Promise.resolve() : untilWoken(arrivals, ms)

    const watchContext = (profile: string, context: BrowserContext) => {
      for (const observer of contextObservers) notify(observer, profile, context)
      context.on("page", (page) => {
        // svc's own session of the page, begun as soon as the library has the page: a lookup of a tab just
        // opened (open, a tab an action opened) then finds it ready rather than making it.
        void describePage(page)
        for (const observer of observers) notify(observer, profile, page)
        arrived++
        for (const wake of [...arrivals]) wake()
      })
      for (const page of context.pages()) for (const observer of observers) notify(observer, profile, page)
    }
    const watch = (profile: string, browser: Browser) => {
      browser.on("context", (context) => watchContext(profile, context))
      for (const context of browser.contexts()) watchContext(profile, context)
    }
    const live = function*() {
      for (const [profile, conn] of connections) {
        for (const context of conn.browser.contexts()) yield [profile, context] as const
      }
    }

    /** Registers an observer of every page, present and future, until the scope closes. */
    const onPage = (observer: PageObserver): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => {
          observers.add(observer)
          for (const [profile, context] of live()) for (const page of context.pages()) notify(observer, profile, page)
        }),
        () => Effect.sync(() => void observers.delete(observer))
      )

    /**
     * Registers an observer of every browser context, present and future, until the scope closes. Listeners
     * on a context see the events of its pages from their very start (the document request, the first
     * console messages), which listeners added on a page when it appears can miss.
     */
    const onContext = (observer: ContextObserver): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => {
          contextObservers.add(observer)
          for (const [profile, context] of live()) notify(observer, profile, context)
        }),
        () => Effect.sync(() => void contextObservers.delete(observer))
      )

    /** Gates every page passes before page() hands it out, and observers of deliberate disconnects. */
    const gates = new Map<PageGate, (profile: string, targetId: string) => boolean>()
    const releaseObservers = new Set<ReleaseObserver>()

    /** Registers a gate; `wants` says which tabs it keeps state for (see ready). */
    const beforeHandOut = (
      gate: PageGate,
      wants: (profile: string, targetId: string) => boolean = () => false
    ): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => void gates.set(gate, wants)),
        () => Effect.sync(() => void gates.delete(gate))
      )

    const onRelease = (observer: ReleaseObserver): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => void releaseObservers.add(observer)),
        () => Effect.sync(() => void releaseObservers.delete(observer))
      )

    /** Each connection by its browser, known before the browser's contexts and pages are observed. */
    const byBrowser = new WeakMap<Browser, Connection>()

    const close = (conn: Connection) =>
      Effect.promise(() => withTimeout(conn.browser.close(), 2_000, "disconnect").catch(() => undefined))

    const connect = (profile: string, endpoint: CdpEndpoint, lib: PlaywrightModule) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        const timeout = Math.max(5_000, endpoint.timeoutMs + endpoint.handshakeTimeoutMs)
        // Credentials in the URL's userinfo go as an Authorization: Basic header, on /json/version and on the
        // websocket alike (the library sends `headers` with both).
        const transport = Option.isSome(localRelay) ? localRelay.value.transportFor(endpoint.url) : undefined
        const browser = yield* Effect.tryPromise({
          try: () => connectLibrary(lib, endpoint, transport, timeout),
          catch: (e) =>
            new BrowserUnavailable({
              message: redactSecrets(
                `the automation library could not connect to the browser of profile "${profile}" at ` +
                  `${endpoint.url}: ${errorText(e)}. Check that the browser runs (\`svc browser status\`), ` +
                  "or start it with `svc browser start`."
              )
            })
        })
        const conn: Connection = {
          browser,
          url: endpoint.url,
          byTarget: new Map(),
          connectMs: performance.now() - t0,
          connectedAt: new Date().toISOString(),
          browserSession: browser.newBrowserCDPSession()
        }
        browser.on("disconnected", () => {
          if (connections.get(profile) === conn) connections.delete(profile)
        })
        void conn.browserSession.then(trackOpenedTabs).then((o) => void (conn.opened = o), () => undefined)
        byBrowser.set(browser, conn)
        watch(profile, browser)
        const t = timingOf(profile)
        t.connectMs = conn.connectMs
        t.connectedAt = conn.connectedAt
        yield* Effect.logDebug(
          `playwright: connected to profile ${profile} in ${conn.connectMs.toFixed(1)} ms` +
            (transport !== undefined ? " (the relay in this process)" : "")
        )
        return conn
      })

    /** The profile's connection: reused while it is up and points at the same endpoint, else made anew. */
    const connection = (profile: string, endpoint: CdpEndpoint, lib: PlaywrightModule) =>
      lockOf(profile).withPermits(1)(
        Effect.gen(function*() {
          const existing = connections.get(profile)
          if (existing !== undefined && existing.browser.isConnected() && existing.url === endpoint.url) return existing
          if (existing !== undefined) {
            connections.delete(profile)
            yield* close(existing)
          }
          const conn = yield* connect(profile, endpoint, lib)
          connections.set(profile, conn)
          return conn
        })
      )

    const remember = (conn: Connection, page: Page, info: PageInfo) => {
      const known = conn.byTarget.get(info.targetId)
      if (known !== undefined && !known.isClosed()) return
      conn.byTarget.set(info.targetId, page)
      page.once("close", () => {
        if (conn.byTarget.get(info.targetId) === page) conn.byTarget.delete(info.targetId)
      })
    }

    /** The target's URL as the browser has it; null when there is no such target, undefined if unknown. */
    const targetUrl = async (conn: Connection, targetId: string): Promise<string | null | undefined> => {
      try {
        const { targetInfo } = await (await conn.browserSession).send("Target.getTargetInfo", { targetId })
        return targetInfo.url
      } catch (e) {
        return /no target/i.test(errorText(e)) ? null : undefined
      }
    }

    /**
     * Looks at the pages not matched yet: those showing the target's URL first (usually the one), the rest
     * only if that fails, so a browser with many tabs does not cost a session per tab on every miss.
     */
    const scan = async (conn: Connection, targetId: string): Promise<Page | "absent" | undefined> => {
      const cached = conn.byTarget.get(targetId)
      if (cached !== undefined && !cached.isClosed()) return cached
      // Pages described already (by another service's first look) are matched without a round trip.
      const open = conn.browser.contexts().flatMap((c) => c.pages()).filter((p) => !p.isClosed())
      for (const p of open) {
        const info = infos.get(p)
        if (info !== undefined) remember(conn, p, info)
      }
      const described = conn.byTarget.get(targetId)
      if (described !== undefined && !described.isClosed()) return described
      const url = await targetUrl(conn, targetId)
      if (url === null) return "absent"
      const unmatched = open.filter((p) => !p.isClosed() && !infos.has(p))
      const likely = url !== undefined ? unmatched.filter((p) => p.url() === url) : []
      for (const group of [likely, unmatched.filter((p) => !likely.includes(p))]) {
        const described = await Promise.all(group.map(async (p) => [p, await describePage(p)] as const))
        for (const [p, info] of described) if (info !== undefined) remember(conn, p, info)
        const found = conn.byTarget.get(targetId)
        if (found !== undefined && !found.isClosed()) return found
      }
      return undefined
    }

    /** The page of a target; a tab opened a moment ago may take a few ms to reach the library. */
    const findPage = (conn: Connection, targetId: string) =>
      Effect.promise(async () => {
        const deadline = Date.now() + attachWaitMs
        while (true) {
          // A page that reaches the library during the scan's round trips is looked at once the scan is done.
          const seen = arrived
          const page = await scan(conn, targetId)
          if (page === "absent") return undefined
          if (page !== undefined || Date.now() >= deadline || !conn.browser.isConnected()) return page
          await nextArrival(seen, 25)
        }
      })

    const page = (profileName: string, endpoint: CdpEndpoint, targetId: string) =>
      Effect.gen(function*() {
        const lib = yield* pw
        const conn = yield* connection(profileName, endpoint, lib)
        const t0 = performance.now()
        let found = yield* findPage(conn, targetId)
        if (found === undefined && !conn.browser.isConnected()) {
          // The browser went away under us (restart, crash): one fresh connection, one more look.
          const again = yield* connection(profileName, endpoint, lib)
          found = yield* findPage(again, targetId)
        }
        const lookupMs = performance.now() - t0
        timingOf(profileName).lookupMs = lookupMs
        if (found === undefined) {
          return yield* new NotFound({
            message: `no tab ${targetId} is open in the browser of profile "${profileName}" (as the automation ` +
              "library sees it); `svc browser tabs` lists the open tabs and their targetIds"
          })
        }
        for (const gate of gates.keys()) yield* gate(profileName, targetId, found)
        return found
      }).pipe(Effect.withSpan("PlaywrightSessions.page", { attributes: { profile: profileName, targetId } }))

    /** The page's own CDP session (one per page, shared by svc's services) and its targetId; undefined once closed. */
    const pageSession = (page: Page): Promise<Pick<PageInfo, "session" | "targetId" | "direct"> | undefined> =>
      describePage(page)

    /**
     * For a request that reads a tab over CDP alone (a screenshot): when a gate keeps state for the tab, its
     * page is looked up (connecting again if the connection dropped) so the gates put that state back first.
     * Never fails: without the library, or without the tab, the request goes ahead as it is.
     */
    const ready = (profileName: string, endpoint: CdpEndpoint, targetId: string) =>
      Effect.suspend(() =>
        [...gates.values()].some((wants) => wants(profileName, targetId))
          ? Effect.ignore(page(profileName, endpoint, targetId))
          : Effect.void
      )

    const disconnect = (profileName: string) =>
      lockOf(profileName).withPermits(1)(
        Effect.gen(function*() {
          for (const observer of releaseObservers) notify(observer, profileName, undefined)
          const conn = connections.get(profileName)
          if (conn === undefined) return false
          connections.delete(profileName)
          yield* close(conn)
          return true
        })
      )

    /** Cross-document navigations of the page's main frame since the library first saw it. */
    const navigations = (page: Page) => Effect.sync(() => infos.get(page)?.navigations ?? 0)

    /**
     * Once the library has seen the page commit a new document: until svc's session has counted it too
     * (its news comes on another session), within `ms`; false when it has not (a round trip then settles it).
     */
    const counted = (page: Page, before: number, ms: number): Promise<boolean> =>
      infos.get(page)?.navigatedPast(before, ms) ?? Promise.resolve(false)

    /**
     * The tab's title as the browser has it. Asked of the browser process, it answers while the page's own
     * thread is busy (page.title() would queue behind a running snapshot).
     */
    const title = (page: Page) =>
      Effect.promise(async () => {
        const info = infos.get(page)
        if (info !== undefined) {
          try {
            const { targetInfo } = await sendOnPage(info, "Target.getTargetInfo") as { targetInfo: { title: string } }
            if (!mayBeUrlTitle(targetInfo.title, page.url())) return targetInfo.title
          } catch {
            // fall back to the page
          }
        }
        return page.title().catch(() => "")
      })

    /**
     * The browser's page targets, asked over the page's own session: one round trip on the library's
     * connection, so the events the browser sent before it (a download, a dialog) have been dispatched when
     * it answers. Undefined when the page is not ours or is gone.
     */
    const pageTargets = (page: Page) =>
      Effect.promise(async () => {
        const info = infos.get(page)
        if (info === undefined) return undefined
        try {
          const { targetInfos } = await info.session.send("Target.getTargets")
          return targetInfos.filter((t) => t.type === "page").map((t) => ({
            targetId: t.targetId,
            url: t.url,
            title: t.title,
            ...(t.openerId !== undefined ? { openerId: t.openerId } : {})
          }))
        } catch {
          return undefined
        }
      })

    /** The targetId of a page we handed out (undefined for a page that did not come from page()). */
    const targetIdOf = (page: Page) => Effect.sync(() => infos.get(page)?.targetId)

    const lastTimings = (profileName: string) =>
      Effect.sync((): PlaywrightTimings => {
        const t = timings.get(profileName)
        return { connectMs: t?.connectMs, lookupMs: t?.lookupMs, connectedAt: t?.connectedAt }
      })

    /** Whether the library loads (loading it if nobody has yet). */
    const available = Effect.map(Effect.either(pw), (e) => e._tag === "Right")

    // Closing a connectOverCDP browser closes our connection only: the user's browser and tabs stay.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...connections.keys()], disconnect, { concurrency: "unbounded", discard: true })
    )

    /**
     * Connect the profile's browser now (a no-op when connected), so that observers see a tab from its
     * first console line. Fails with 501 when the library is absent.
     */
    const attach = (profile: string, endpoint: CdpEndpoint) =>
      Effect.flatMap(pw, (lib) => connection(profile, endpoint, lib)).pipe(Effect.asVoid)

    const trips = makeRoundTrips()
    /** A round trip on the page's own session issued after `mark` (see roundTrips.ts). */
    const barrier = (page: Page, mark: number): Promise<void> => trips.barrier(page, mark, () => evaluateMain(page, "0"))

    /** The tabs the page opened that are still open, as the browser announced them; undefined: not known so. */
    const openedBy = (page: Page): ReadonlyArray<OpenedTab> | undefined => {
      const info = infos.get(page)
      const browser = page.context().browser()
      return info === undefined || browser === null ? undefined : byBrowser.get(browser)?.opened?.openedBy(info.targetId)
    }

    /** The browser-level session of the browser's connection (undefined: not a browser svc connected to). */
    const browserSession = (browser: Browser): Promise<CDPSession> | undefined => byBrowser.get(browser)?.browserSession

    /** The library's page of one of the browser's tabs, found as page() finds it; undefined: none (yet). */
    const pageOfTarget = async (browser: Browser, targetId: string): Promise<Page | undefined> => {
      const conn = byBrowser.get(browser)
      const found = conn === undefined ? undefined : await scan(conn, targetId)
      return found === "absent" ? undefined : found
    }

    /**
     * `expression` by value over the page's own session, in world `contextId` (default: the main world).
     * `direct`: beside the library where the connection allows (rawSends.ts), for reads that need no order
     * with the session's events; such a call is no round trip for `barrier`.
     */
    const evaluateOn = (page: Page, info: PageInfo, expression: string, contextId?: number, direct = false): Promise<unknown> => {
      const params = { expression, returnByValue: true, ...(contextId !== undefined ? { contextId } : {}) }
      const sent: Promise<{ result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }> =
        direct && info.direct !== undefined ? info.direct("Runtime.evaluate", params) : trips.sent(page, info.session.send("Runtime.evaluate", params))
      return sent.then((r) => {
        if (r.exceptionDetails !== undefined) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text)
        return r.result.value as unknown
      })
    }

    /**
     * Runs `expression` in the page's main world over the page's own CDP session: a round trip of a fraction
     * of a millisecond, where the library's evaluate takes a few. Undefined when the page has no such session
     * (the caller then uses the library); rejects with the page's exception.
     */
    const evaluateMain = (page: Page, expression: string): Promise<unknown> | undefined => {
      const info = infos.get(page)
      return info === undefined || page.isClosed() ? undefined : evaluateOn(page, info, expression)
    }

    /** `expression` by value in an isolated world of an iframe (see frameWorld.ts): out of process, or in the page's. */
    const evaluateInFrameWorld = makeFrameWorlds()
    const evaluateInLocalFrames = makeLocalFrameWorlds(describePage, evaluateOn)
    /** The same for a snapshot's reads (see evaluateUtilityDirect). */
    const evaluateInLocalFramesDirect = makeLocalFrameWorlds(describePage, (p, i, e, c) => evaluateOn(p, i, e, c, true))

    /**
     * The same in the library's utility world of the main frame's document (where its AI snapshots run and
     * mark each element with its ref). Undefined when that world is not known (yet).
     */
    const inUtilityWorld = (direct: boolean) => (page: Page, expression: string): Promise<unknown> | undefined => {
      const info = infos.get(page)
      return info === undefined || info.utility === undefined || page.isClosed()
        ? undefined
        : evaluateOn(page, info, expression, info.utility, direct)
    }
    const evaluateUtility = inUtilityWorld(false)
    /**
     * evaluateUtility beside the library where the connection allows (a third of the gateway's CPU per call):
     * for a snapshot's reads (the walk's end, the controls, the ref checks put in place) and an action's checks
     * and quick click before it acts. Not for what follows an action (its guards' release): those round trips
     * tell `barrier` that the session's events before them were dispatched.
     */
    const evaluateUtilityDirect = inUtilityWorld(true)

    /**
     * The page of a tab the connection already knows, and still open; undefined otherwise (without a round
     * trip: the callers that get one skip looking the tab up in the browser's list).
     */
    const knownPage = (profileName: string, targetId: string): Page | undefined => {
      const conn = connections.get(profileName)
      if (conn === undefined || !conn.browser.isConnected()) return undefined
      const found = conn.byTarget.get(targetId)
      return found !== undefined && !found.isClosed() ? found : undefined
    }

    return {
      preload,
      page,
      pageSession,
      knownPage,
      evaluateMain,
      evaluateUtility,
      evaluateUtilityDirect,
      evaluateInFrameWorld,
      evaluateInLocalFrames,
      evaluateInLocalFramesDirect,
      sendMark: trips.sendMark,
      barrier,
      openedBy,
      browserSession,
      pageOfTarget,
      attach,
      disconnect,
      navigations,
      counted,
      title,
      pageTargets,
      targetIdOf,
      lastTimings,
      available,
      onPage,
      onContext,
      beforeHandOut,
      ready,
      onRelease
    } as const
  })

export class PlaywrightSessions extends Effect.Service<PlaywrightSessions>()("svc/PlaywrightSessions", {
  scoped: makePlaywrightSessions()
}) {
  /** The service with explicit options (a loader that fails gives the 501 path). */
  static readonly layer = (options: PlaywrightOptions): Layer.Layer<PlaywrightSessions> =>
    Layer.scoped(PlaywrightSessions, Effect.map(makePlaywrightSessions(options), (impl) => PlaywrightSessions.make(impl)))
}
