import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Deferred, Effect, Schedule, type Scope } from "effect"
import type { LastExit } from "../../domain/browser.js"
import { BrowserUnavailable } from "../../domain/errors.js"
import { CdpDiscovery, CdpProbeFailed } from "../cdp/discovery.js"
import { POLL_INTERVAL_MS, spawnBrowser } from "./browserProcess.js"
import { CHOSEN_BY_BROWSER, isSameRun, ownerOnlyDir, readActivePort, removeActivePort, tightenActivePort } from "./activePort.js"
import { portState } from "./portState.js"
import { isAlive, resolveBrowserPid } from "./processes.js"
import { ProfileDecor } from "./ProfileDecor.js"
import { clearStaleSingleton } from "./singletonLock.js"
import { adoptBrowser, endOwnBrowser, findOwnBrowser } from "./takeover.js"

// One managed Chromium as a scoped resource: acquired when its DevTools endpoint answers, released by
// stopping its whole process group. The browser runs detached in its own group so that closing the scope
// takes its helper processes with it.

export interface LaunchOptions {
  readonly profile: string
  readonly executable: string
  readonly userDataDir: string
  /** The DevTools port; 0 (CHOSEN_BY_BROWSER): Chromium picks a free one and names it in DevToolsActivePort. */
  readonly cdpPort: number
  readonly headless: boolean
  readonly noSandbox: boolean
  /** Accent colour "#RRGGBB", written into the profile before launch. */
  readonly color: string
  /** How long to wait for the DevTools endpoint; 20 s by default. */
  readonly startTimeoutMs?: number
  /** Further Chromium switches (e.g. --load-extension), placed before the start page. */
  readonly extraArgs?: ReadonlyArray<string>
  /**
   * Work that can overlap the browser's start-up (it takes a few hundred ms, on other cores): run once the
   * process is spawned, before its DevTools port is waited for. Not run when a running browser is taken over.
   */
  readonly whileStarting?: Effect.Effect<void>
}

export type BrowserExit = typeof LastExit.Type

export interface LaunchedBrowser {
  /** The browser process itself (not a wrapper script). */
  readonly pid: number
  /** The port the DevTools answer on (the one Chromium chose, when it was asked to). */
  readonly cdpPort: number
  readonly cdpUrl: string
  readonly webSocketDebuggerUrl: string
  readonly executable: string
  readonly userDataDir: string
  /** ISO time the process was spawned. */
  readonly startedAt: string
  /** Spawn to DevTools-ready. */
  readonly elapsedMs: number
  readonly isRunning: () => boolean
  /** Completes when the browser exits, however that happens. */
  readonly exit: Effect.Effect<BrowserExit>
  /**
   * Asks a browser svc spawned to quit and returns at once (closing its scope still waits for it to be
   * gone). Absent for a browser taken over: its stop decides what becomes of it.
   */
  readonly quit?: Effect.Effect<void>
  /** The last ~2 KB of the browser's stderr, without known noise. */
  readonly stderrTail: () => string
  /** Not launched now: the profile's own browser, left running by an earlier gateway, taken over (takeover.ts). */
  readonly takenOver?: boolean
}

export const DEFAULT_START_TIMEOUT_MS = 20_000
/** How often a chosen port's DevToolsActivePort is looked for once the browser said it listens (it comes within a few ms). */
const FILE_POLL_MS = 3

// ---------------------------------------------------------------------------------------------------------
// Messages

const hints = (tail: string, opts: LaunchOptions): string => {
  const out: Array<string> = []
  if (/without --no-sandbox|No usable sandbox/i.test(tail) && !opts.noSandbox) {
    out.push("Chromium refuses to run as root with its sandbox: set browser.noSandbox to true in svc.json.")
  }
  if (/Missing X server|\$DISPLAY|cannot open display/i.test(tail) && !opts.headless) {
    out.push("There is no display: set browser.headless to true in svc.json.")
  }
  if (/ProcessSingleton|profile appears to be in use/i.test(tail)) {
    out.push(`The profile directory ${opts.userDataDir} is in use by another browser; stop that browser first.`)
  }
  return out.length === 0 ? "" : ` ${out.join(" ")}`
}

const showTail = (tail: string): string => (tail.trim() === "" ? " It printed nothing on stderr." : ` Its stderr ended with:\n${tail}`)

export const describeExit = (e: BrowserExit): string =>
  e.signal !== null ? `was killed by ${e.signal}` : e.code !== null ? `exited with code ${e.code}` : "could not be started"

// ---------------------------------------------------------------------------------------------------------
// The service

const unavailable = (message: string) => new BrowserUnavailable({ message })

/**
 * The browser an earlier run of this profile left on the port it chose: DevToolsActivePort names a port that
 * answers with that same run's websocket (a stale file names a port nobody, or another browser, holds).
 */
const leftRunning = (discovery: CdpDiscovery, userDataDir: string) =>
  Effect.gen(function* () {
    const active = yield* readActivePort(userDataDir)
    if (active === undefined) return undefined
    const version = yield* Effect.option(discovery.probe(active.port))
    return version._tag === "Some" && isSameRun(active, version.value.webSocketDebuggerUrl)
      ? { active, version: version.value }
      : undefined
  })

export class ChromeLauncher extends Effect.Service<ChromeLauncher>()("svc/ChromeLauncher", {
  effect: Effect.gen(function* () {
    const decor = yield* ProfileDecor
    const discovery = yield* CdpDiscovery

    const launch = (opts: LaunchOptions): Effect.Effect<LaunchedBrowser, BrowserUnavailable, Scope.Scope> =>
      Effect.gen(function* () {
        const port = opts.cdpPort
        const chosen = port === CHOSEN_BY_BROWSER
        const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
        const where = `the "${opts.profile}" browser`
        const portName = chosen ? "its DevTools port" : `its DevTools port ${port}`

        if (chosen) {
          // The profile's own browser, left running by a gateway that was killed, on the port it chose then.
          const left = yield* leftRunning(discovery, opts.userDataDir)
          if (left !== undefined) {
            const own = yield* findOwnBrowser(opts.userDataDir, port)
            if (own !== undefined) return yield* adoptBrowser(own, opts, left.active.port, left.version)
          }
        }
        let state = chosen ? ({ _tag: "free" } as const) : yield* portState(discovery, port)
        if (state._tag === "cdp") {
          // The profile's own browser, left running by a gateway that was killed: take it over, tabs and all.
          const own = yield* findOwnBrowser(opts.userDataDir, port)
          if (own !== undefined) return yield* adoptBrowser(own, opts, port, state.version)
        }
        if (state._tag === "other") {
          // The profile's own browser holds the port but does not answer (hung): end it, start afresh.
          const own = yield* findOwnBrowser(opts.userDataDir, port, true)
          if (own !== undefined) {
            yield* Effect.logWarning(`ending the unresponsive browser of profile "${opts.profile}" (pid ${own}) on port ${port}`)
            yield* endOwnBrowser(own)
            state = yield* portState(discovery, port)
          }
        }
        if (state._tag === "cdp") {
          return yield* unavailable(
            `Port ${port} already answers the DevTools protocol (${state.browser}): another browser is using it. ` +
              `Stop that browser, or give this profile another port with browser.profiles.${opts.profile}.cdpPort in svc.json ` +
              `(or remove it, and Chromium chooses a free port).`
          )
        }
        if (state._tag === "other") {
          return yield* unavailable(
            `Port ${port} is already in use by another program, so ${where} cannot listen there. Stop that program, ` +
              `or give this profile a free port with browser.profiles.${opts.profile}.cdpPort in svc.json (or remove it, ` +
              `and Chromium chooses a free port).`
          )
        }

        const usable = yield* Effect.promise(() =>
          fs.access(opts.executable, fs.constants.X_OK).then(
            () => true,
            () => false
          )
        )
        if (!usable) {
          return yield* unavailable(
            `Cannot start ${where}: ${opts.executable} does not exist or is not executable. ` +
              `Set browser.executablePath in svc.json to a Chromium-based browser.`
          )
        }

        // Owner-only: it holds cookies and sessions, and DevToolsActivePort (the port, readable by no other user).
        yield* Effect.tryPromise({
          try: () => ownerOnlyDir(opts.userDataDir),
          catch: (e) => unavailable(`Cannot create the profile directory ${opts.userDataDir}: ${String(e)}`)
        })
        let lock = yield* clearStaleSingleton(opts.userDataDir)
        if (lock._tag === "in-use" && (yield* findOwnBrowser(opts.userDataDir, port, true)) === lock.pid) {
          // The profile's own browser, killed with its gateway before its DevTools port opened (or, on a port it
          // chose, one that no longer answers there): end it.
          yield* Effect.logWarning(
            chosen
              ? `ending the browser of profile "${opts.profile}" (pid ${lock.pid}) that holds its profile but does not answer`
              : `ending the half-started browser of profile "${opts.profile}" (pid ${lock.pid})`
          )
          yield* endOwnBrowser(lock.pid)
          lock = yield* clearStaleSingleton(opts.userDataDir)
        }
        if (lock._tag === "in-use") {
          return yield* unavailable(
            `The profile directory ${opts.userDataDir} is in use by another browser process (pid ${lock.pid}). ` +
              `Stop that process, or attach to it with browser.profiles.${opts.profile}.cdpUrl instead.`
          )
        }
        if (lock._tag === "other-host") {
          return yield* unavailable(
            `The profile directory ${opts.userDataDir} is locked by a browser on another computer ` +
              `("${lock.host}", pid ${lock.pid}), according to its SingletonLock. If no browser there uses it ` +
              `(for example the hostname changed), delete ${path.join(opts.userDataDir, "SingletonLock")} and start again.`
          )
        }
        if (lock._tag === "removed") yield* Effect.logDebug(`removed a stale SingletonLock of pid ${lock.pid}`)
        // Only the file the browser about to start writes may be read for its port.
        yield* removeActivePort(opts.userDataDir)

        // The tint is cosmetic: a profile that cannot be decorated still launches.
        yield* decor.apply(opts.userDataDir, { name: opts.profile, color: opts.color }).pipe(
          Effect.catchAll((e) => Effect.logWarning(e.message))
        )

        const proc = yield* Effect.acquireRelease(
          Effect.try({
            try: () => spawnBrowser(opts),
            catch: (e) => unavailable(`Cannot start ${where} (${opts.executable}): ${String(e)}`)
          }),
          (p) => p.stop
        )
        if (opts.whileStarting !== undefined) yield* opts.whileStarting

        // Chromium opens its DevTools port a few hundred ms after spawn and says so on stderr, naming its
        // websocket: that line is the answer (an HTTP probe then would wait for a browser busy opening its first
        // tab: 40-60 ms at a cold start). Where no line comes (a wrapper that keeps stderr), ask until the port
        // answers; a port the browser chose is read from DevToolsActivePort, which it writes once listening.
        // That file comes a moment after the line (later still on a loaded machine): a chosen port is ready once
        // it is there too, so that it is made owner-only below and the next gateway finds this browser by it.
        const said = Deferred.await(proc.listening).pipe(
          Effect.map((url) => ({ port: Number(new URL(url).port), webSocketDebuggerUrl: url })),
          Effect.tap(({ webSocketDebuggerUrl }) =>
            chosen
              ? readActivePort(opts.userDataDir).pipe(
                Effect.repeat({
                  until: (active) => active !== undefined && isSameRun(active, webSocketDebuggerUrl),
                  schedule: Schedule.spaced(FILE_POLL_MS)
                })
              )
              : Effect.void
          )
        )
        const answer: Effect.Effect<{ readonly port: number; readonly webSocketDebuggerUrl: string }, CdpProbeFailed> = chosen
          ? Effect.flatMap(readActivePort(opts.userDataDir), (active) =>
            active === undefined
              ? Effect.fail(new CdpProbeFailed())
              : discovery.probe(active.port).pipe(
                Effect.filterOrFail((v) => isSameRun(active, v.webSocketDebuggerUrl), () => new CdpProbeFailed()),
                Effect.map((version) => ({ port: active.port, webSocketDebuggerUrl: version.webSocketDebuggerUrl }))
              ))
          : Effect.map(discovery.probe(port), (version) => ({ port, webSocketDebuggerUrl: version.webSocketDebuggerUrl }))
        const ready = Effect.raceFirst(
          said,
          answer.pipe(
            Effect.tapError(() => Effect.sleep(POLL_INTERVAL_MS)),
            Effect.eventually
          )
        )
        const died = Deferred.await(proc.exit).pipe(
          Effect.flatMap((e) =>
            Effect.fail(
              unavailable(
                `The browser (${opts.executable}) ${describeExit(e)} before its DevTools endpoint answered` +
                  `${chosen ? "" : ` on port ${port}`}.` +
                  hints(e.stderrTail, opts) +
                  showTail(e.stderrTail)
              )
            )
          )
        )
        const { port: listening, webSocketDebuggerUrl } = yield* Effect.raceFirst(ready, died).pipe(
          Effect.timeoutFail({
            duration: timeoutMs,
            onTimeout: () =>
              unavailable(
                `The browser (${opts.executable}, pid ${proc.pid}) did not answer on ${portName} within ` +
                  `${timeoutMs} ms and was stopped.${hints(proc.tail(), opts)}${showTail(proc.tail())}`
              )
          }),
          // Do not keep a half-started browser until the caller's scope closes.
          Effect.onError(() => proc.stop)
        )
        const elapsedMs = Date.now() - proc.startedAt.getTime()
        const pid = yield* resolveBrowserPid(proc.pid, port)
        proc.setBrowserPid(pid)
        yield* tightenActivePort(opts.userDataDir)

        return {
          pid,
          cdpPort: listening,
          cdpUrl: `http://127.0.0.1:${listening}`,
          webSocketDebuggerUrl,
          executable: opts.executable,
          userDataDir: opts.userDataDir,
          startedAt: proc.startedAt.toISOString(),
          elapsedMs,
          // The pid itself is asked: the exit event comes a moment after a kill, and a zombie is not running.
          isRunning: () => !proc.exited() && isAlive(pid),
          exit: Deferred.await(proc.exit),
          quit: proc.quit,
          stderrTail: proc.tail
        } satisfies LaunchedBrowser
      }).pipe(Effect.withSpan("ChromeLauncher.launch", { attributes: { profile: opts.profile, port: opts.cdpPort } }))

    return { launch }
  }),
  dependencies: [ProfileDecor.Default, CdpDiscovery.Default]
}) {}
