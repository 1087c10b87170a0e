import { Duration, Effect, Either, Runtime } from "effect"
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core"
import type { MediaRequest, ThrottleRequest } from "../../domain/browserState.js"
import { InvalidRequest } from "../../domain/errors.js"
import type { TabRef } from "../act/Refs.js"
import { checkViewport } from "../act/inputs.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { errorText } from "../pages/promises.js"
import {
  applyProfile,
  applyTab,
  geolocationOf,
  type Lost,
  mediaOptions,
  scrub,
  secretsOf,
  type Send,
  sendCpu,
  sendMetrics,
  sendNetwork,
  sendTouch,
  sendUserAgent
} from "./emulationApply.js"
import {
  checkGeolocation,
  checkHeaders,
  checkLocale,
  checkOrigin,
  checkTimezone,
  type Credentials,
  type DeviceInfo,
  findDevice,
  type Geolocation,
  isNone,
  originOf
} from "./emulationInput.js"
import { makeEmulationSettings, type ProfileSettings, type TabSettings, without } from "./EmulationSettings.js"
import { pageCall } from "./PageCall.js"
import { asksAnything, nextThrottle, type Throttle } from "./throttle.js"

// Emulated conditions of a tab or of the whole profile.
//
// Profile-wide (the library's context setters; the default context over CDP is the whole profile, so tabs
// opened later get them too): offline, extra headers, HTTP credentials, geolocation (with its permission).
// Per tab: media (the library's emulateMedia), and over a CDP session of our own that stays attached to the
// tab (an Emulation override lasts only as long as the session that set it): timezone, locale, device
// (user agent, metrics, touch), viewport, and network and CPU throttling.
//
// What was set is remembered (EmulationSettings) by profile and by tab (profile + targetId), not by page
// object: when the library's connection is re-made (a dropped websocket), the new connection's contexts
// get the profile's settings and its pages their tab's settings again, at once when it connects and in any
// case before page() hands a page out. A setting that cannot be put back is logged (never a header value or
// a password) and reported by the next emulation call of the profile. Letting go of the profile's browser
// (stop, delete) forgets everything about it; a closed tab's settings are forgotten.

export type { Credentials, DeviceInfo, Geolocation } from "./emulationInput.js"

export type Scope = "tab" | "profile"

export interface Applied<A> {
  readonly scope: Scope
  readonly value: A
  /** Settings of this profile that could not be applied again after a re-made connection, once each. */
  readonly notes: ReadonlyArray<string>
}

/** How long a request waits for a tab's settings to be put back before it goes ahead anyway. */
const RESYNC_WAIT = Duration.seconds(10)

const SETTLED: Promise<void> = Promise.resolve()

/** A closed page's tab is forgotten only if its connection is still up this long after (a drop closes every page). */
const CLOSE_GRACE_MS = 500

const makeEmulation = Effect.gen(function*() {
  const sessions = yield* PlaywrightSessions
  const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())
  const store = makeEmulationSettings()

  /** The tab each page object is, as page() handed it out (or as its target told us). */
  const tabOf = new WeakMap<Page, TabRef>()
  /** Our own CDP session on each page, where its Emulation overrides live. */
  const cdpOf = new WeakMap<Page, Promise<CDPSession>>()
  /** A page object that has its tab's settings, or is being given them. */
  const synced = new WeakMap<Page, Promise<void>>()
  /** A context of a new connection being given the profile's settings. */
  const contextReady = new WeakMap<BrowserContext, Promise<void>>()
  /** Settings of pages whose tab we do not know (not handed out by page()): applied, not remembered. */
  const loose = new WeakMap<Page, TabSettings>()
  const watched = new WeakSet<Page>()
  /** Connections whose closed tabs were already looked for. */
  const pruned = new WeakSet<Browser>()

  /** Marks the entry settled once its work is done, so later requests do not wait on it at all. */
  const track = <K extends object>(map: WeakMap<K, Promise<void>>, key: K, work: Promise<void>) => {
    map.set(key, work)
    void work.then(() => {
      if (map.get(key) === work) map.set(key, SETTLED)
    })
    return work
  }

  const sessionOf = (page: Page): Promise<CDPSession> => {
    let session = cdpOf.get(page)
    if (session === undefined) {
      const made = page.context().newCDPSession(page)
      made.catch(() => {
        if (cdpOf.get(page) === made) cdpOf.delete(page)
      })
      cdpOf.set(page, made)
      session = made
    }
    return session
  }

  /** Sends on the tab's own session, made once and kept attached (a closed one is replaced once). */
  const sendOn = (page: Page): Send => (what, method, params = {}) =>
    pageCall(what, async () => {
      for (let attempt = 0;; attempt++) {
        const promise = sessionOf(page)
        try {
          const session = await promise
          return await (session.send as (m: string, p: Record<string, unknown>) => Promise<unknown>)(method, params)
        } catch (e) {
          if (attempt > 0 || !/closed|detached|Session/i.test(String(e))) throw e
          if (cdpOf.get(page) === promise) cdpOf.delete(page)
        }
      }
    })

  /** Forget the tab when its page closes, unless the close is the whole connection dropping. */
  const watchClose = (page: Page, tab: TabRef) => {
    if (watched.has(page)) return
    watched.add(page)
    page.once("close", () => {
      const browser = page.context().browser()
      setTimeout(() => {
        if (browser?.isConnected() === true) store.forgetTab(tab)
      }, CLOSE_GRACE_MS).unref()
    })
  }

  const know = (page: Page, tab: TabRef) => {
    if (!tabOf.has(page)) tabOf.set(page, tab)
    watchClose(page, tab)
  }

  /** Logs and keeps for the next emulation call what could not be put back; drops it from the settings. */
  const report = <K>(profile: string, where: string, lost: ReadonlyArray<Lost<K>>, secrets: ReadonlyArray<string> = []) =>
    Effect.forEach(lost, (l) => {
      const reason = scrub(l.reason, secrets)
      const text = `the ${l.setting} of ${where} could not be applied again after the connection to the browser was ` +
        `re-made (${reason}); it is no longer in force: set it again`
      store.note(profile, text)
      return Effect.logWarning(`emulation: ${text}`)
    }, { discard: true })

  /** Whether the profile is offline (a throttle's conditions carry it, see emulationApply's sendNetwork). */
  const offlineIn = (profile: string) => store.profile(profile)?.offline === true

  /** Puts the tab's settings on a page object that has none of them. Never fails. */
  const resync = (tab: TabRef, page: Page) =>
    runPromise(
      Effect.gen(function*() {
        const settings = store.tab(tab)
        if (settings === undefined) return
        const lost = yield* applyTab(page, sendOn(page), settings, offlineIn(tab.profile))
        // A page closed meanwhile (the tab, or the whole connection dropping again) has lost nothing.
        if (lost.length === 0 || page.isClosed()) return
        const now = store.tab(tab)
        if (now !== undefined) store.setTab(tab, without(now, lost.flatMap((l) => l.keys)))
        yield* report(tab.profile, `tab ${tab.targetId}`, lost)
      })
    )

  /** A page present when a connection was made: learn its tab from its target, then resync it. */
  const identifyAndResync = (profile: string, page: Page) =>
    sessionOf(page)
      .then((session) => session.send("Target.getTargetInfo"))
      .then(({ targetInfo }) => {
        const tab = { profile, targetId: targetInfo.targetId }
        know(page, tab)
        // A page without settings keeps the session all the same: detaching a session from a page ends the
        // network conditions (offline) that any session set on it.
        if (store.tab(tab) !== undefined) return resync(tab, page)
      })
      .catch(() => undefined)

  /** Forgets the tabs of the profile that the browser no longer has (closed while we were not connected). */
  const prune = (profile: string, browser: Browser) =>
    runPromise(
      Effect.promise(async () => {
        const session = await browser.newBrowserCDPSession()
        try {
          const { targetInfos } = await session.send("Target.getTargets")
          const alive = new Set(targetInfos.map((t) => t.targetId))
          for (const tab of store.tabsOf(profile)) if (!alive.has(tab.targetId)) store.forgetTab(tab)
        } finally {
          await session.detach().catch(() => undefined)
        }
      }).pipe(Effect.catchAllDefect((e) => Effect.logDebug(`emulation: could not list the tabs of ${profile}: ${errorText(e)}`)))
    )

  // A context of a (re-made) connection: the profile's settings go back on it, and the tab settings on the
  // pages it already has, without waiting for a request.
  yield* sessions.onContext((profile, context) => {
    const settings = store.profile(profile)
    if (settings !== undefined) {
      track(
        contextReady,
        context,
        runPromise(Effect.flatMap(applyProfile(context, settings), (lost) => {
          // A connection that dropped again meanwhile is not a setting lost: the next one tries again.
          if (lost.length === 0 || context.browser()?.isConnected() === false) return Effect.void
          const now = store.profile(profile)
          if (now !== undefined) store.setProfile(profile, without(now, lost.flatMap((l) => l.keys)))
          return report(profile, `profile "${profile}"`, lost, secretsOf(settings))
        }))
      )
    }
    if (store.tabsOf(profile).length === 0) return
    for (const page of context.pages()) {
      if (!synced.has(page) && !page.isClosed()) track(synced, page, identifyAndResync(profile, page))
    }
    const browser = context.browser()
    if (browser !== null && !pruned.has(browser)) {
      pruned.add(browser)
      void prune(profile, browser)
    }
  })

  // Every page a request gets has its profile's and its tab's settings first.
  yield* sessions.beforeHandOut((profile, targetId, page) =>
    Effect.suspend(() => {
      const tab = { profile, targetId }
      know(page, tab)
      const waits: Array<Promise<void>> = []
      const ready = contextReady.get(page.context())
      if (ready !== undefined && ready !== SETTLED) waits.push(ready)
      let done = synced.get(page)
      if (done === undefined && store.tab(tab) !== undefined) done = track(synced, page, resync(tab, page))
      if (done !== undefined && done !== SETTLED) waits.push(done)
      if (waits.length === 0) return Effect.void
      return Effect.promise(() => Promise.all(waits)).pipe(Effect.timeout(RESYNC_WAIT), Effect.ignore)
    }), (profile, targetId) => store.tab({ profile, targetId }) !== undefined)

  yield* sessions.onRelease((profile) => store.forgetProfile(profile))

  // -------------------------------------------------------------------------------------------------------
  // Remembering what was set

  const tabSettings = (page: Page): TabSettings => {
    const tab = tabOf.get(page)
    return (tab !== undefined ? store.tab(tab) : loose.get(page)) ?? {}
  }

  /** Records the page's tab settings as now in force on it; answers the profile's notes. */
  const keepTab = (page: Page, settings: TabSettings): ReadonlyArray<string> => {
    const tab = tabOf.get(page)
    if (tab === undefined) {
      loose.set(page, settings)
      return []
    }
    store.setTab(tab, settings)
    synced.set(page, SETTLED)
    return store.takeNotes(tab.profile)
  }

  const keepProfile = (page: Page, change: (s: ProfileSettings) => ProfileSettings): ReadonlyArray<string> => {
    const tab = tabOf.get(page)
    if (tab === undefined) return []
    store.setProfile(tab.profile, change(store.profile(tab.profile) ?? {}))
    return store.takeNotes(tab.profile)
  }

  const applied = <A>(scope: Scope, value: A, notes: ReadonlyArray<string>): Applied<A> => ({ scope, value, notes })

  // -------------------------------------------------------------------------------------------------------
  // The setters

  const offline = (page: Page, on: boolean) =>
    Effect.gen(function*() {
      yield* pageCall("set offline", () => page.context().setOffline(on))
      // A throttled tab's conditions hide the library's: they are sent again with the new state.
      for (const other of page.context().pages()) {
        const settings = tabSettings(other)
        if (settings.network !== undefined && !other.isClosed()) yield* sendNetwork(sendOn(other), settings, on, "set offline")
      }
      return applied("profile", on, keepProfile(page, (s) => ({ ...s, offline: on ? true : undefined })))
    })

  const headers = (page: Page, raw: Record<string, string>) =>
    Effect.gen(function*() {
      const h = yield* checkHeaders(raw)
      yield* pageCall("set headers", () => page.context().setExtraHTTPHeaders(h))
      const notes = keepProfile(page, (s) => ({ ...s, headers: Object.keys(h).length > 0 ? h : undefined }))
      return applied<Record<string, string>>("profile", h, notes)
    })

  type CredentialsShown = { user: string; origin: string | undefined } | null

  const credentials = (page: Page, c: Credentials | null) =>
    Effect.gen(function*() {
      if (c === null) {
        yield* pageCall("set credentials", () => page.context().setHTTPCredentials(null))
        return applied<CredentialsShown>("profile", null, keepProfile(page, (s) => ({ ...s, credentials: undefined })))
      }
      if (c.user === "" || /[\u0000-\u001f:]/.test(c.user)) {
        return yield* new InvalidRequest({ message: "set credentials: give a user name without control characters or `:`, and a password" })
      }
      const origin = c.origin !== undefined ? yield* checkOrigin(c.origin, "set credentials") : undefined
      yield* pageCall("set credentials", () =>
        page.context().setHTTPCredentials({
          username: c.user,
          password: c.pass,
          ...(origin !== undefined ? { origin } : {})
        }))
      const kept: Credentials = { user: c.user, pass: c.pass, ...(origin !== undefined ? { origin } : {}) }
      const notes = keepProfile(page, (s) => ({ ...s, credentials: kept }))
      return applied<CredentialsShown>("profile", { user: c.user, origin }, notes)
    })

  const geolocation = (page: Page, g: Geolocation | null) =>
    Effect.gen(function*() {
      const ctx = page.context()
      if (g === null) {
        yield* pageCall("set geolocation", () => ctx.setGeolocation(null))
        yield* pageCall("set geolocation", () => ctx.clearPermissions())
        return applied<Geolocation | null>("profile", null, keepProfile(page, (s) => ({ ...s, geolocation: undefined })))
      }
      const ok = yield* checkGeolocation(g)
      const origin = ok.origin !== undefined ? yield* checkOrigin(ok.origin, "set geolocation") : originOf(page.url())
      yield* pageCall("set geolocation", () => ctx.setGeolocation(geolocationOf(ok)))
      yield* pageCall("set geolocation", () => ctx.grantPermissions(["geolocation"], origin !== undefined ? { origin } : {}))
      const value: Geolocation = { ...geolocationOf(ok), ...(origin !== undefined ? { origin } : {}) }
      return applied<Geolocation | null>("profile", value, keepProfile(page, (s) => ({ ...s, geolocation: value })))
    })

  /** CSS media features of the tab: those given change ("none": the browser's own again), the others stay. */
  const media = (page: Page, r: MediaRequest) =>
    Effect.gen(function*() {
      if (r.media === undefined && r.reducedMotion === undefined && r.forcedColors === undefined && r.contrast === undefined && r.type === undefined) {
        return yield* new InvalidRequest({
          message: "set media: give what to emulate: a colour scheme (dark, light, no-preference), reducedMotion, " +
            "forcedColors, contrast or type (screen, print); none for any stops emulating it"
        })
      }
      const off = <A>(v: A | "none" | undefined, was: A | undefined): A | undefined => v === undefined ? was : v === "none" ? undefined : v
      const was = tabSettings(page)
      const next: TabSettings = {
        ...was,
        media: off(r.media, was.media),
        reducedMotion: off(r.reducedMotion, was.reducedMotion),
        forcedColors: off(r.forcedColors, was.forcedColors),
        contrast: off(r.contrast, was.contrast),
        mediaType: off(r.type, was.mediaType)
      }
      yield* pageCall("set media", () => page.emulateMedia(mediaOptions(next)))
      return applied<MediaRequest>("tab", r, keepTab(page, next))
    })

  const timezone = (page: Page, zone: string) =>
    Effect.gen(function*() {
      const send = sendOn(page)
      if (isNone(zone)) {
        yield* send("clear timezone", "Emulation.setTimezoneOverride", { timezoneId: "" })
        return applied<string | null>("tab", null, keepTab(page, { ...tabSettings(page), timezone: undefined }))
      }
      const z = yield* checkTimezone(zone)
      // An override from this session is replaced by resetting it first (Chromium refuses a second one).
      yield* Effect.ignore(send("set timezone", "Emulation.setTimezoneOverride", { timezoneId: "" }))
      yield* send("set timezone", "Emulation.setTimezoneOverride", { timezoneId: z })
      return applied<string | null>("tab", z, keepTab(page, { ...tabSettings(page), timezone: z }))
    })

  /** The user agent the page sees (the browser's own where no override of the tab's is in force). */
  const userAgentOf = (page: Page, what: string) => pageCall(what, () => page.evaluate("navigator.userAgent") as Promise<string>)

  /** The tab's own user agent: none over it (an empty one ends the override), or a device's again. */
  const ownUserAgent = (send: Send, next: TabSettings, what: string) =>
    next.userAgent !== undefined ? sendUserAgent(send, next, what) : send(what, "Emulation.setUserAgentOverride", { userAgent: "" })

  const locale = (page: Page, tag: string) =>
    Effect.gen(function*() {
      const send = sendOn(page)
      const before = tabSettings(page)
      if (isNone(tag)) {
        yield* send("clear locale", "Emulation.setLocaleOverride", {})
        // The user agent carried the language; a device's stays (without it), the tab's own needs no override.
        const next: TabSettings = { ...before, locale: undefined, userAgent: before.mobile !== undefined ? before.userAgent : undefined }
        yield* ownUserAgent(send, next, "clear locale")
        return applied<string | null>("tab", null, keepTab(page, next))
      }
      const l = yield* checkLocale(tag)
      yield* Effect.ignore(send("set locale", "Emulation.setLocaleOverride", {}))
      yield* send("set locale", "Emulation.setLocaleOverride", { locale: l })
      const userAgent = before.userAgent ??
        (yield* userAgentOf(page, "set locale"))
      const next: TabSettings = { ...before, locale: l, userAgent }
      yield* sendUserAgent(send, next, "set locale")
      return applied<string | null>("tab", l, keepTab(page, next))
    })

  const device = (page: Page, name: string) =>
    Effect.gen(function*() {
      const send = sendOn(page)
      const before = tabSettings(page)
      if (isNone(name)) {
        // The browser's own size, scale, input and user agent (with the emulated locale's language, if one is set).
        yield* send("clear device", "Emulation.clearDeviceMetricsOverride")
        yield* send("clear device", "Emulation.setTouchEmulationEnabled", { enabled: false })
        yield* send("clear device", "Emulation.setUserAgentOverride", { userAgent: "" })
        const userAgent = before.locale !== undefined
          ? yield* userAgentOf(page, "clear device")
          : undefined
        const next: TabSettings = { ...before, userAgent, scale: undefined, mobile: undefined, touch: undefined, size: undefined }
        if (userAgent !== undefined) yield* sendUserAgent(send, next, "clear device")
        return applied<DeviceInfo | null>("tab", null, keepTab(page, next))
      }
      const d = yield* findDevice(name)
      const next: TabSettings = {
        ...before,
        userAgent: d.userAgent,
        scale: d.deviceScaleFactor,
        mobile: d.isMobile,
        touch: d.hasTouch,
        size: { ...d.viewport }
      }
      yield* sendUserAgent(send, next, "set device")
      yield* sendMetrics(send, next, "set device")
      yield* sendTouch(send, next, "set device")
      return applied<DeviceInfo | null>("tab", d, keepTab(page, next))
    })

  const viewport = (page: Page, width: number, height: number) =>
    Effect.gen(function*() {
      const size = yield* Either.mapLeft(
        checkViewport(width, height),
        (e) => new InvalidRequest({ message: e.message.replace(/^resize:/, "set viewport:").replace("svc browser resize", "svc browser set viewport") })
      )
      const next: TabSettings = { ...tabSettings(page), size }
      yield* sendMetrics(sendOn(page), next, "set viewport")
      return applied("tab", size, keepTab(page, next))
    })

  /** A slower network and CPU for the tab; what the request does not mention stays as it is. */
  const throttle = (page: Page, r: ThrottleRequest) =>
    Effect.gen(function*() {
      if (!asksAnything(r)) {
        return yield* new InvalidRequest({
          message: "set throttle: give a network preset (slow-3g, fast-3g, slow-4g, fast-4g, or none for the full " +
            "speed), latencyMs, downloadKbps or uploadKbps, or cpu (how many times slower, 1 to 20; 1: its own speed)"
        })
      }
      const was = tabSettings(page)
      const t = nextThrottle(was, r)
      const next: TabSettings = { ...was, network: t.network, cpuRate: t.cpuRate }
      const send = sendOn(page)
      const tab = tabOf.get(page)
      const offline = tab !== undefined && offlineIn(tab.profile)
      if (next.network !== was.network) yield* sendNetwork(send, next, offline, "set throttle")
      if (next.cpuRate !== was.cpuRate) yield* sendCpu(send, next, "set throttle")
      return applied<Throttle>("tab", t, keepTab(page, next))
    })

  return { offline, headers, credentials, geolocation, media, timezone, locale, device, viewport, throttle } as const
})

/**
 * Network, location, locale and device emulation, per tab or per profile (see above), kept in force across
 * a re-made connection to the browser.
 */
export class Emulation extends Effect.Service<Emulation>()("svc/Emulation", {
  scoped: makeEmulation,
  dependencies: [PlaywrightSessions.Default]
}) {}
