import { Effect, Layer } from "effect"
import type { Browser, BrowserContext, CDPSession, Frame, Page, Request, Route } from "playwright-core"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { type Decision, hasLists, type PolicySettings } from "./checkUrl.js"
import { NavigationPolicy } from "./NavigationPolicy.js"
import { pausePatterns } from "./pausePatterns.js"

// The policy where the page itself sends the browser somewhere, on the library's connection:
// - every document request of every tab that the policy could refuse (a link, a form, a redirect hop,
//   `location = …`, and the first load of a tab a page opens; pausePatterns.ts says which) is paused on a
//   browser-level CDP session of our own (every request, when browser.allowedDomains or blockedDomains is
//   set), and refused ones fail as blocked by the client. The patterns are told again when svc's own ports
//   change (a browser svc launched opens its DevTools on a port of its choosing). The library's own routing
//   never sees redirect hops (it lets them through); intercepting documents only leaves the page's other
//   requests alone, and the HTTP cache on.
// - where the browser refuses interception at its own level (an extension relay may), the old way: a
//   page-level session per tab intercepts its documents, and the library's routing on each browser context
//   catches what starts before such a session can exist (a new tab's first request, closed when refused).
//   That routing sees every request when lists are set, else requests to this machine and to metadata
//   addresses, and it turns the library's HTTP cache off for the context.
// Refused main-frame navigations are logged in the policy, so the request that caused one answers 403.

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** URLs whose host may be this machine or a metadata service (the policy decides; this only narrows). */
const localOrMetadataUrl = (s: PolicySettings): RegExp => {
  const hosts = [
    "localhost",
    "[^/?#@]*\\.localhost",
    "127(?:\\.\\d{1,3}){3}",
    "0\\.0\\.0\\.0",
    "\\[[^\\]/]*\\]",
    "169\\.254\\.169\\.254",
    "169\\.254\\.170\\.2",
    "100\\.100\\.100\\.200",
    "metadata\\.google\\.internal",
    "metadata",
    ...[...s.interfaces].filter((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a)).map(escape)
  ]
  return new RegExp(`^[a-z][a-z0-9+.-]*://(?:[^/?#@]*@)?(?:${hosts.join("|")})\\.?(?::\\d+)?(?:[/?#]|$)`, "i")
}

/** A request's frame; none for a service worker's (the library throws there). */
const frameOf = (r: Request): Frame | undefined => {
  try {
    return r.frame()
  } catch {
    return undefined
  }
}

export const PolicyRouting = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const policy = yield* NavigationPolicy
    const decideNow = (url: string) => Effect.runSync(policy.decide(url))
    /** A paused request must be answered; one the policy cannot judge is not let through. */
    const decide = (url: string): Decision => {
      try {
        return decideNow(url)
      } catch {
        return { allowed: false, rule: "scheme", message: `${url} could not be checked` }
      }
    }

    /**
     * Logs a refused main-frame navigation. A tab the page opened, refused before it showed anything, is
     * closed: no tab is left on (or blank from) a refused URL, and its opener's request says so.
     */
    const refusedMainFrame = async (page: Page, url: string, decision: Extract<Decision, { allowed: false }>) => {
      const opener = await page.opener().catch(() => null)
      const fresh = opener !== null && (page.url() === "" || page.url() === "about:blank")
      policy.record({ page, opener: opener ?? undefined, url, decision, closedTab: fresh })
      if (fresh) await closeOpened(page)
    }

    /**
     * Closes a tab the page opened. Over the browser-level session, asked again every half second while the
     * tab stays (up to 5 s): the browser now and then drops a close sent as a tab commits its first document
     * (cdp/tabs.ts closeTab), and the library's page.close sends it only once.
     */
    const closeOpened = async (page: Page): Promise<void> => {
      const browser = page.context().browser()
      const [session, own] = await Promise.all([
        browser !== null ? sessions.browserSession(browser)?.catch(() => undefined) : undefined,
        sessions.pageSession(page)
      ])
      if (session === undefined || own === undefined) return page.close().catch(() => undefined)
      const closed = new Promise<void>((resolve) => page.once("close", () => resolve()))
      for (let asked = 0; asked < 10 && !page.isClosed(); asked++) {
        await session.send("Target.closeTarget", { targetId: own.targetId }).catch(() => undefined)
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 500))])
      }
    }

    /**
     * Answers a request paused by one of our interceptions: let through, or failed. A refused main-frame load
     * is cancelled (the tab stays on its page, no error page) and then handed to `refusedMain`; a frame's
     * load, or any other request, fails as blocked by the client.
     */
    const answerPaused = async (
      session: CDPSession,
      event: { readonly requestId: string; readonly request: { readonly url: string } },
      isMainFrame: () => boolean | Promise<boolean>,
      refusedMain: (decision: Extract<Decision, { allowed: false }>) => Promise<void>
    ) => {
      const decision = decide(event.request.url)
      if (decision.allowed) {
        await session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => undefined)
        return
      }
      const mainFrame = await isMainFrame()
      void session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: mainFrame ? "Aborted" : "BlockedByClient" })
        .catch(() => undefined)
      if (mainFrame) await refusedMain(decision)
    }

    /** A refused main-frame load of a tab, paused browser-wide: its page logs it, else the request that opened the tab claims it. */
    const refusedBrowserWide = async (browser: Browser, targetId: string, url: string, decision: Extract<Decision, { allowed: false }>) => {
      const page = await sessions.pageOfTarget(browser, targetId)
      if (page !== undefined) return refusedMainFrame(page, url, decision)
      // A new tab's first load, before the library reported its page: the request that opened it claims it.
      policy.record({ page: undefined, opener: undefined, url, decision, closedTab: false })
    }

    /**
     * The sessions pausing requests for the policy, and what each was told last. A browser svc launches opens
     * its DevTools on a port of its choosing, svc's own from then on: every pausing session is told again.
     */
    const pausing = new Map<CDPSession, { readonly documentsOnly: boolean; told: string }>()
    /** Has `session` pause what the policy could refuse (documentsOnly: a tab's own session; see pausePatterns.ts). */
    const pause = async (session: CDPSession, documentsOnly: boolean) => {
      const patterns = pausePatterns(Effect.runSync(policy.settings), documentsOnly)
      const told = JSON.stringify(patterns)
      if (pausing.get(session)?.told === told) return
      pausing.set(session, { documentsOnly, told })
      try {
        await session.send("Fetch.enable", { patterns: [...patterns] })
      } catch (e) {
        pausing.delete(session)
        throw e
      }
    }
    yield* policy.onOwnPortsChange(() => {
      for (const [session, { documentsOnly }] of pausing) void pause(session, documentsOnly).catch(() => undefined)
    })

    /**
     * Per browser: interception of every tab's documents on a browser-level session of its own. False where
     * the browser refuses it there: its pages are then guarded one by one (guard, route).
     */
    const wide = new WeakMap<Browser, Promise<boolean>>()
    const interceptBrowser = (browser: Browser): Promise<boolean> => {
      const known = wide.get(browser)
      if (known !== undefined) return known
      const setUp = (async () => {
        // The connection's own browser-level session (none: not a browser svc connected to; pages guard themselves).
        const session = await sessions.browserSession(browser)
        if (session === undefined) return false
        session.on("Fetch.requestPaused", (event) => {
          // A tab's main frame has the tab's target id as its frame id (an out-of-process iframe's is an iframe target).
          const isMainFrame = () =>
            event.resourceType === "Document" &&
            session.send("Target.getTargetInfo", { targetId: event.frameId }).then((r) => r.targetInfo.type === "page", () => false)
          void answerPaused(session, event, isMainFrame, (decision) => refusedBrowserWide(browser, event.frameId, event.request.url, decision))
            .catch(() => undefined)
        })
        await pause(session, false)
        browser.once("disconnected", () => pausing.delete(session))
        return true
      })().catch(() => false)
      wide.set(browser, setUp)
      return setUp
    }

    /** A page's guard: the browser-wide interception, else its own (page() waits for it before handing it out). */
    const guardPage = (page: Page): Promise<void> => {
      const browser = page.context().browser()
      if (browser === null) return guard(page)
      return interceptBrowser(browser).then((ok) => (ok ? undefined : guard(page)))
    }

    /** Per page: its document interception, set up once (the fallback of interceptBrowser). */
    const guarded = new WeakMap<Page, Promise<void>>()
    const guard = (page: Page): Promise<void> => {
      const known = guarded.get(page)
      if (known !== undefined) return known
      const setUp = (async () => {
        // The page's own session (shared with svc's other services: one attach per page, not one each).
        const own = await sessions.pageSession(page)
        if (own === undefined) return
        const { session, targetId } = own
        session.on("Fetch.requestPaused", (event) => {
          void answerPaused(session, event, () => event.frameId === targetId, (decision) => refusedMainFrame(page, event.request.url, decision))
            .catch(() => undefined)
        })
        await pause(session, true)
        page.once("close", () => pausing.delete(session))
      })().catch(() => undefined) // a page that closes meanwhile needs no guard
      guarded.set(page, setUp)
      return setUp
    }

    const onRoute = async (route: Route, request: Request) => {
      const decision = decideNow(request.url())
      if (decision.allowed) return route.fallback().catch(() => undefined)
      const frame = frameOf(request)
      // A navigation whose frame the library does not know yet is a new tab's first load.
      const newTab = request.isNavigationRequest() && frame === undefined
      const mainFrame = newTab || (frame !== undefined && request.isNavigationRequest() && frame.parentFrame() === null)
      if (newTab) {
        // Its opener is not known here: the request that opened it claims it (NavigationPolicy.refusedSince).
        policy.record({ page: undefined, opener: undefined, url: request.url(), decision, closedTab: false })
      }
      await route.abort(mainFrame ? "aborted" : "blockedbyclient").catch(() => undefined)
      if (newTab) return
      const page = frame !== undefined && mainFrame ? frame.page() : undefined
      if (page) await refusedMainFrame(page, request.url(), decision)
    }

    // Whatever the lists say, a tab the page opens never sends its first request to svc's own ports or a
    // metadata service: that request starts before a session of ours can exist on the tab, so the library's
    // routing is always on for those hosts. The price: any route turns the library's HTTP cache off for the
    // context (a page that could use its cache loads about 3x slower; a first visit about 5% slower).
    const route = (context: BrowserContext) => {
      const settings = Effect.runSync(policy.settings)
      void context.route(hasLists(settings) ? "**" : localOrMetadataUrl(settings), onRoute).catch(() => undefined)
    }
    const routeUnlessWide = (context: BrowserContext) => {
      const browser = context.browser()
      if (browser === null) return route(context)
      void interceptBrowser(browser).then((ok) => ok || route(context))
    }

    yield* sessions.onContext((_profile, context) => routeUnlessWide(context))
    yield* sessions.onPage((_profile, page) => void guardPage(page))
    yield* sessions.beforeHandOut((_profile, _targetId, page) => Effect.promise(() => guardPage(page)))
  })
)
