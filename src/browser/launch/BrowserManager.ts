import { Effect, Exit, Fiber, Option, Ref, Scope, SynchronizedRef } from "effect"
import * as fs from "node:fs"
import { ConfigStore } from "../../config/ConfigStore.js"
import type { BrowserStatus, StartResult } from "../../domain/browser.js"
import { BrowserUnavailable, Conflict } from "../../domain/errors.js"
import { type AutomationAvailability, probeAutomation } from "../pages/Automation.js"
import { Cdp } from "../cdp/Cdp.js"
import type { CdpEndpoint } from "../cdp/endpoints.js"
import { isAuthenticationFailure } from "../cdp/messages.js"
import { redactSecrets } from "../../domain/redact.js"
import { CHOSEN_BY_BROWSER } from "./activePort.js"
import { defaultHeadless, defaultNoSandbox } from "./chromeFlags.js"
import { ChromeLauncher, type LaunchedBrowser } from "./ChromeLauncher.js"
import { ChromeLocator, type LocatedBrowser } from "./ChromeLocator.js"
import { profileInfo, Profiles, redactNullable, type ResolvedProfile } from "./Profiles.js"

interface Running {
  readonly launched: LaunchedBrowser
  readonly executable: string
  readonly headless: boolean
  readonly scope: Scope.CloseableScope
  readonly watcher: Fiber.RuntimeFiber<void>
}

type LastExit = NonNullable<BrowserStatus["lastExit"]>

/** How long a relay that answered is taken to be there without asking again. */
const RELAY_RECHECK_MS = 2_000

/**
 * The browsers of all profiles: launches managed ones on demand (one per profile), attaches to remote
 * ones, notices when a launched browser dies, and stops what it launched when the gateway stops.
 */
export class BrowserManager extends Effect.Service<BrowserManager>()("svc/BrowserManager", {
  scoped: Effect.gen(function*() {
    const store = yield* ConfigStore
    const profiles = yield* Profiles
    const locator = yield* ChromeLocator
    const launcher = yield* ChromeLauncher
    const cdp = yield* Cdp
    const automation: AutomationAvailability = yield* probeAutomation

    // Launch/stop of one profile are serialised; different profiles proceed independently.
    const running = yield* SynchronizedRef.make(new Map<string, Running>())
    const lastExits = yield* Ref.make(new Map<string, LastExit>())
    /** The tab each profile last opened or focused. */
    const currentTabs = yield* Ref.make(new Map<string, string>())
    /**
     * Profiles whose browser ended on its own (crashed, killed) and that no tab was opened or focused in
     * since: how it ended. Their current tab went with that browser; the browser started again in its place
     * has none, so a request without a targetId fails saying so instead of acting on a fresh blank tab.
     */
    const lostTabs = yield* Ref.make(new Map<string, LastExit>())
    /** When each relay profile's relay last answered with an extension connected (performance.now()). */
    const relayReached = new Map<string, number>()
    /** Told before a profile's browser is stopped (or its profile deleted), to let go of that browser. */
    const stopListeners = new Set<(profile: string) => Effect.Effect<void>>()
    /** Told once a managed browser's process is spawned, before its DevTools port answers. */
    const startingListeners = new Set<(profile: string) => Effect.Effect<void>>()
    /** Told once a managed browser svc launched answers. */
    const startedListeners = new Set<(profile: string, endpoint: CdpEndpoint) => Effect.Effect<void>>()
    /** Adds a listener to `set` for as long as the caller's scope is open. */
    const listenWhileOpen = <L>(set: Set<L>) => (listener: L): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => void set.add(listener)),
        () => Effect.sync(() => void set.delete(listener))
      )

    const endpointOf = (url: string): Effect.Effect<CdpEndpoint> =>
      Effect.map(store.get, (config) => ({
        url,
        timeoutMs: config.browser?.remoteCdpTimeoutMs ?? 1500,
        handshakeTimeoutMs: config.browser?.remoteCdpHandshakeTimeoutMs ?? 3000
      }))

    /**
     * Where the gateway itself dials a profile's CDP: the relay takes the gateway's own secret (as HTTP Basic,
     * never shown: status and profiles show the profile's plain URL).
     */
    const dialUrl = (profile: ResolvedProfile) =>
      Effect.map(store.get, (config) => {
        const url = profile.cdpUrl ?? `http://127.0.0.1:${profile.cdpPort}`
        const secret = config.gateway?.auth?.token ?? config.gateway?.auth?.password
        if (profile.driver !== "relay" || secret === undefined) return url
        const u = new URL(url)
        u.username = "svc"
        u.password = secret
        return u.href
      })

    const forgetLostTab = (profile: string) =>
      Ref.update(lostTabs, (l) => {
        if (!l.has(profile)) return l
        const next = new Map(l)
        next.delete(profile)
        return next
      })

    const liveLaunch = (name: string) =>
      Effect.map(SynchronizedRef.get(running), (m) => {
        const r = m.get(name)
        return r !== undefined && r.launched.isRunning() ? r : undefined
      })

    /** Why the browser at `url` cannot be spoken to, or none when it answers. */
    const unreachableWhy = (url: string) =>
      Effect.flatMap(endpointOf(url), (ep) => cdp.version(ep)).pipe(
        Effect.as(Option.none<BrowserUnavailable>()),
        Effect.catchAll((e) => Effect.succeed(Option.some(e)))
      )
    const reachable = (url: string) => Effect.map(unreachableWhy(url), Option.isNone)

    const settings = Effect.map(store.get, (config) => ({
      headless: config.browser?.headless ?? defaultHeadless(process.env, process.platform),
      noSandbox: config.browser?.noSandbox ?? defaultNoSandbox()
    }))

    // Detection asks the desktop for its default browser (tens of ms): do it once per configured path,
    // and again only if the executable found has gone.
    const located = yield* Ref.make<{ readonly configured: string | undefined; readonly found: LocatedBrowser } | undefined>(
      undefined
    )
    const locate = (configured: string | undefined) =>
      Effect.gen(function*() {
        const cached = yield* Ref.get(located)
        if (cached !== undefined && cached.configured === configured && fs.existsSync(cached.found.path)) {
          return cached.found
        }
        const found = yield* locator.locate(configured)
        yield* Ref.set(located, { configured, found })
        return found
      })

    const launch = (profile: ResolvedProfile) =>
      Effect.gen(function*() {
        const config = yield* store.get
        const executable = yield* locate(config.browser?.executablePath)
        // A port set in svc.json is kept; otherwise Chromium chooses one (found in the owner-only user-data dir).
        const port = profile.cdpPort ?? CHOSEN_BY_BROWSER
        const { headless, noSandbox } = yield* settings
        const scope = yield* Scope.make()
        const launched = yield* launcher.launch({
          profile: profile.name,
          executable: executable.path,
          userDataDir: profile.userDataDir!,
          cdpPort: port,
          headless,
          noSandbox,
          color: profile.color,
          whileStarting: Effect.forEach([...startingListeners], (listener) => listener(profile.name), { discard: true })
        }).pipe(
          Scope.extend(scope),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
        // Crash detection: when the process exits on its own, forget it and remember how it ended.
        const watcher = yield* launched.exit.pipe(
          Effect.flatMap((exit) =>
            Effect.zipRight(
              Effect.zipRight(
                Ref.update(lastExits, (m) => new Map(m).set(profile.name, exit)),
                Ref.update(lostTabs, (m) => new Map(m).set(profile.name, exit))
              ),
              SynchronizedRef.update(running, (m) => {
                if (m.get(profile.name)?.launched !== launched) return m
                const next = new Map(m)
                next.delete(profile.name)
                return next
              })
            )
          ),
          Effect.forkDaemon
        )
        const ep = yield* endpointOf(launched.cdpUrl)
        // Begun before the tabs are asked for: the library's connection is what the caller waits for next, and
        // a browser that has just started answers both slowly (it is busy opening its first tab).
        if (launched.takenOver !== true) {
          const known = { ...ep, webSocketUrl: launched.webSocketDebuggerUrl }
          yield* Effect.forkIn(Effect.forEach([...startedListeners], (listener) => listener(profile.name, known), { discard: true }), scope)
        }
        // The first tab of a fresh browser is its current tab. Of a browser taken over, only a lone tab is:
        // which of several tabs the earlier gateway meant is not known, and guessing could act on the wrong one.
        const tabs = yield* cdp.listTabs(ep).pipe(Effect.orElseSucceed(() => []))
        const lost = (yield* Ref.get(lostTabs)).has(profile.name)
        const first = lost || (launched.takenOver === true && tabs.length !== 1) ? undefined : tabs[0]
        yield* Ref.update(currentTabs, (m) => {
          const next = new Map(m)
          if (first !== undefined) next.set(profile.name, first.targetId)
          else next.delete(profile.name)
          return next
        })
        if (launched.takenOver === true) {
          yield* Effect.logInfo(
            `took over the browser of profile "${profile.name}" (pid ${launched.pid}, port ${launched.cdpPort}, ` +
              `${tabs.length} tab(s)) that an earlier gateway left running`
          )
        }
        return { launched, executable: executable.path, headless, scope, watcher } satisfies Running
      })

    const startProfile = (profile: ResolvedProfile) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        if (profile.driver !== "managed" || profile.attachOnly) {
          const url = yield* dialUrl(profile)
          if (profile.cdpPort === null && profile.cdpUrl === null) {
            return yield* new Conflict({
              message: `profile "${profile.name}" is attach-only and has no CDP port: set browser.profiles.${profile.name}.cdpPort`
            })
          }
          // The relay answered a moment ago: asking again on every request would cost each one an HTTP round
          // trip (a relay that lost its extension meanwhile fails the request's CDP calls, saying so).
          const reachedAt = relayReached.get(profile.name)
          if (profile.driver === "relay" && reachedAt !== undefined && performance.now() - reachedAt < RELAY_RECHECK_MS) {
            return { launched: false as boolean, elapsedMs: performance.now() - t0 }
          }
          const why = yield* unreachableWhy(url)
          if (Option.isNone(why) && profile.driver === "relay") relayReached.set(profile.name, performance.now())
          if (Option.isSome(why)) {
            relayReached.delete(profile.name)
            // The endpoint answered but refused the credentials: say that, not that nothing answers.
            if (isAuthenticationFailure(why.value)) {
              return yield* new BrowserUnavailable({ message: `profile "${profile.name}": ${why.value.message}` })
            }
            const where = redactSecrets(url)
            return yield* (profile.driver === "relay"
              ? new BrowserUnavailable({
                message: `the extension relay for profile "relay" is not connected at ${redactNullable(profile.cdpUrl)}: ` +
                  "load the svc relay extension in your browser (`svc browser extension path`), paste " +
                  "`svc browser extension token` in its settings and click its toolbar icon on a tab; or use the " +
                  "managed browser (`--browser-profile svc`, or make it the default with " +
                  "`svc config set browser.defaultProfile svc`)"
              })
              : new BrowserUnavailable({
                message: profile.attachOnly && profile.driver === "managed"
                  ? `profile "${profile.name}" is attach-only and nothing answers CDP at ${where}; ` +
                    `start the browser yourself with --remote-debugging-port=${profile.cdpPort}`
                  : `no browser answers CDP at ${where} for profile "${profile.name}"; check that it is running and that cdpUrl is right`
              }))
          }
          return { launched: false as boolean, elapsedMs: performance.now() - t0 }
        }
        return yield* SynchronizedRef.modifyEffect(running, (m) =>
          Effect.gen(function*() {
            const existing = m.get(profile.name)
            if (existing !== undefined && existing.launched.isRunning()) {
              return [{ launched: false as boolean, elapsedMs: performance.now() - t0 }, m] as const
            }
            const r = yield* launch(profile)
            const launched = r.launched.takenOver !== true
            return [{ launched, elapsedMs: performance.now() - t0 }, new Map(m).set(profile.name, r)] as const
          })
        )
      })

    const statusOf = (profile: ResolvedProfile) =>
      Effect.gen(function*() {
        const live = profile.driver === "managed" ? yield* liveLaunch(profile.name) : undefined
        const { headless } = yield* settings
        let runningNow = live !== undefined
        if (!runningNow && (profile.driver !== "managed" || profile.attachOnly) && profile.cdpUrl !== null) {
          runningNow = yield* reachable(yield* dialUrl(profile))
        }
        const lastExit = (yield* Ref.get(lastExits)).get(profile.name) ?? null
        const current = runningNow ? (yield* Ref.get(currentTabs)).get(profile.name) ?? null : null
        return {
          profile: profile.name,
          driver: profile.driver,
          running: runningNow,
          pid: live?.launched.pid ?? null,
          cdpPort: live?.launched.cdpPort ?? profile.cdpPort,
          cdpUrl: redactNullable(live?.launched.cdpUrl ?? profile.cdpUrl),
          executable: live?.executable ?? null,
          headless: live?.headless ?? headless,
          attachOnly: profile.attachOnly,
          color: profile.color,
          currentTargetId: current,
          automation,
          lastExit
        } satisfies BrowserStatus
      })

    const status = (name: string | undefined) => Effect.flatMap(profiles.resolve(name), statusOf)

    const start = (name: string | undefined) =>
      Effect.gen(function*() {
        const profile = yield* profiles.resolve(name)
        // Started on purpose: a browser launched now is a fresh one, its first tab the current tab.
        if ((yield* liveLaunch(profile.name)) === undefined) yield* forgetLostTab(profile.name)
        const { launched, elapsedMs } = yield* startProfile(profile)
        return { status: yield* statusOf(profile), launched, elapsedMs } satisfies StartResult
      })

    /**
     * Registers a listener told (before the browser is ended) whenever a profile is stopped or deleted, for
     * as long as the caller's scope is open. A remote profile's listeners are told too: the gateway lets go
     * of that browser even though it does not end it.
     */
    const onStop = listenWhileOpen(stopListeners)

    /**
     * Registers work that overlaps a managed browser's start-up (told once its process is spawned, before its
     * DevTools port answers), for as long as the caller's scope is open.
     */
    const whileStarting = listenWhileOpen(startingListeners)

    /**
     * Registers work for a managed browser svc has just launched (told once its DevTools port answers, beside
     * the answer to whoever started it), for as long as the caller's scope is open.
     */
    const whenStarted = listenWhileOpen(startedListeners)

    const stopProfile = (name: string) =>
      SynchronizedRef.modifyEffect(running, (m) =>
        Effect.gen(function*() {
          yield* Effect.forEach([...stopListeners], (listener) => listener(name), { discard: true })
          const r = m.get(name)
          if (r === undefined) return [false, m] as const
          yield* Fiber.interrupt(r.watcher)
          yield* Scope.close(r.scope, Exit.void)
          // Stopped on purpose: the next start's first tab is its current tab again.
          yield* forgetLostTab(name)
          yield* Ref.update(currentTabs, (c) => {
            const next = new Map(c)
            next.delete(name)
            return next
          })
          const next = new Map(m)
          next.delete(name)
          return [true, next] as const
        })
      )

    const stop = (name: string | undefined) =>
      Effect.gen(function*() {
        const profile = yield* profiles.resolve(name)
        return { profile: profile.name, stopped: yield* stopProfile(profile.name) }
      })

    /**
     * The CDP endpoint of a profile's browser, starting a managed one on demand. Remote, relay and
     * attach-only profiles must already be reachable.
     */
    const endpoint = (name: string | undefined) =>
      Effect.gen(function*() {
        const profile = yield* profiles.resolve(name)
        if (profile.driver === "managed" && !profile.attachOnly) {
          yield* startProfile(profile)
          const live = yield* liveLaunch(profile.name)
          if (live === undefined) {
            return yield* new BrowserUnavailable({ message: `the browser of profile "${profile.name}" exited while starting` })
          }
          return { profile, endpoint: yield* endpointOf(live.launched.cdpUrl) }
        }
        yield* startProfile(profile)
        return { profile, endpoint: yield* endpointOf(yield* dialUrl(profile)) }
      })

    const currentTab = (profile: string) => Effect.map(Ref.get(currentTabs), (m) => Option.fromNullable(m.get(profile)))
    const setCurrentTab = (profile: string, targetId: string | undefined) =>
      Effect.zipRight(
        Ref.update(currentTabs, (m) => {
          const next = new Map(m)
          if (targetId === undefined) next.delete(profile)
          else next.set(profile, targetId)
          return next
        }),
        targetId === undefined ? Effect.void : forgetLostTab(profile)
      )

    /** How the profile's browser ended, when its current tab went with it (see lostTabs). */
    const lostTab = (profile: string) => Effect.map(Ref.get(lostTabs), (m) => Option.fromNullable(m.get(profile)))

    // Stop every browser we launched when the gateway stops.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const names = [...(yield* SynchronizedRef.get(running)).keys()]
        yield* Effect.forEach(names, stopProfile, { concurrency: "unbounded", discard: true })
      })
    )

    /**
     * The gateway is stopping: every browser svc spawned is asked to quit now, so that its exit overlaps the
     * rest of the shutdown (the stop above still waits for each). Its crash watch ends first: this exit is
     * not a crash.
     */
    const quitAll = Effect.gen(function*() {
      for (const r of (yield* SynchronizedRef.get(running)).values()) {
        if (r.launched.quit === undefined) continue
        yield* Fiber.interrupt(r.watcher)
        yield* r.launched.quit
      }
    })

    /** Forget a user profile, stop its browser, and move its data dir to the trash. */
    const deleteProfile = (name: string) =>
      Effect.gen(function*() {
        const profile = yield* profiles.forget(name)
        yield* stopProfile(profile.name)
        const trashedTo = yield* profiles.discardData(profile)
        return { name: profile.name, deleted: true, trashedTo }
      })

    const runningProfiles = Effect.map(SynchronizedRef.get(running), (m) => new Set(m.keys()))

    /** Every profile, and whether its browser is running; a running managed one with the port it listens on. */
    const listProfiles = Effect.gen(function*() {
      const live = yield* SynchronizedRef.get(running)
      const all = yield* profiles.list
      return {
        profiles: all.map((p) => {
          const r = live.get(p.name)
          return r === undefined
            ? profileInfo(p, false)
            : profileInfo({ ...p, cdpPort: r.launched.cdpPort, cdpUrl: r.launched.cdpUrl }, true)
        })
      }
    })

    return {
      automation,
      status,
      start,
      stop,
      quitAll,
      endpoint,
      currentTab,
      setCurrentTab,
      lostTab,
      deleteProfile,
      listProfiles,
      runningProfiles,
      onStop,
      whileStarting,
      whenStarted
    } as const
  })
}) {}

