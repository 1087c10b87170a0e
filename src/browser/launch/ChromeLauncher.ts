import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Deferred, Effect, Exit, FiberId, Schedule, type Scope } from "effect"
import type { LastExit } from "../../domain/browser.js"
import { BrowserUnavailable } from "../../domain/errors.js"
import { CdpDiscovery } from "../cdp/discovery.js"
import { ProfileDecor } from "./ProfileDecor.js"

// One managed Chromium as a scoped resource: acquired when its DevTools endpoint answers, released by
// stopping its whole process group. The browser runs detached in its own group so that closing the scope
// takes its helper processes with it.

export interface LaunchOptions {
  readonly profile: string
  readonly executable: string
  readonly userDataDir: string
  readonly cdpPort: number
  readonly headless: boolean
  readonly noSandbox: boolean
  /** Accent colour "#RRGGBB", written into the profile before launch. */
  readonly color: string
  /** How long to wait for the DevTools endpoint; 20 s by default. */
  readonly startTimeoutMs?: number
  /** Further Chromium switches (e.g. --load-extension), placed before the start page. */
  readonly extraArgs?: ReadonlyArray<string>
}

export type BrowserExit = typeof LastExit.Type

export interface LaunchedBrowser {
  /** The browser process itself (not a wrapper script). */
  readonly pid: number
  readonly cdpPort: number
  readonly cdpUrl: string
  readonly webSocketDebuggerUrl: string
  /** As /json/version reports it, e.g. "Chrome/156.0.8078.79". */
  readonly browserVersion: string
  readonly executable: string
  readonly userDataDir: string
  /** ISO time the process was spawned. */
  readonly startedAt: string
  /** Spawn to DevTools-ready. */
  readonly elapsedMs: number
  readonly isRunning: () => boolean
  /** Completes when the browser exits, however that happens. */
  readonly exit: Effect.Effect<BrowserExit>
  /** The last ~2 KB of the browser's stderr, without known noise. */
  readonly stderrTail: () => string
}

export const DEFAULT_START_TIMEOUT_MS = 20_000
const POLL_INTERVAL_MS = 15
const TERM_GRACE_MS = 3_000
const KILL_GRACE_MS = 2_000
const TAIL_BYTES = 2_048
const WINDOW_SIZE = "1280,800"

/** Headless unless a display is there to show the window (Linux and other X11/Wayland systems). */
export const defaultHeadless = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform
): boolean => {
  if (platform === "darwin" || platform === "win32") return false
  const has = (v: string | undefined) => v !== undefined && v.trim() !== ""
  return !has(env.DISPLAY) && !has(env.WAYLAND_DISPLAY)
}

/** Chromium's sandbox refuses to run as root. */
export const defaultNoSandbox = (uid: number | undefined = process.getuid?.()): boolean => uid === 0

export const chromeArgs = (opts: LaunchOptions): Array<string> => [
  `--remote-debugging-port=${opts.cdpPort}`,
  "--remote-debugging-address=127.0.0.1",
  `--user-data-dir=${opts.userDataDir}`,
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-features=Translate,MediaRouter",
  "--password-store=basic",
  "--use-mock-keychain",
  `--window-size=${WINDOW_SIZE}`,
  ...(opts.headless ? ["--headless=new"] : []),
  ...(opts.noSandbox ? ["--no-sandbox"] : []),
  ...(opts.extraArgs ?? []),
  "about:blank"
]

// Lines every headless/containerised Chromium prints that say nothing about why it failed.
const NOISE = [/ERROR:dbus\//, /: unexpected operator$/, /^\s*$/]

/** The tail of a stderr buffer, noise removed, cut at a line start, at most `max` characters. */
export const cleanTail = (raw: string, max = TAIL_BYTES): string => {
  const kept = raw
    .split(/\r?\n/)
    .filter((l) => !NOISE.some((re) => re.test(l)))
    .join("\n")
  if (kept.length <= max) return kept
  const cut = kept.slice(-max)
  const nl = cut.indexOf("\n")
  return nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut
}

// ---------------------------------------------------------------------------------------------------------
// DevTools endpoint probes

export type PortState =
  | { readonly _tag: "free" }
  | { readonly _tag: "cdp"; readonly browser: string }
  | { readonly _tag: "other" }

const tcpConnects = (port: number, timeoutMs = 500): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    let done = false
    const finish = (v: boolean) => {
      if (done) return
      done = true
      socket.destroy()
      resume(Effect.succeed(v))
    }
    socket.setTimeout(timeoutMs, () => finish(true)) // accepted but silent: something holds it
    socket.once("connect", () => finish(true))
    socket.once("error", (e: NodeJS.ErrnoException) => finish(e.code !== "ECONNREFUSED"))
    return Effect.sync(() => socket.destroy())
  })

export const portState = (discovery: CdpDiscovery, port: number): Effect.Effect<PortState> =>
  Effect.gen(function* () {
    if (!(yield* tcpConnects(port))) return { _tag: "free" } as const
    const v = yield* Effect.option(discovery.probe(port))
    return v._tag === "Some" ? ({ _tag: "cdp", browser: v.value.browser ?? "a browser" } as const) : ({ _tag: "other" } as const)
  })

// ---------------------------------------------------------------------------------------------------------
// Stale singleton locks

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
  // A zombie has exited; it only waits for its parent (maybe not us) to reap it.
  if (process.platform !== "linux") return true
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    return true
  }
}

export type LockState =
  | { readonly _tag: "none" }
  | { readonly _tag: "removed"; readonly pid: number }
  | { readonly _tag: "in-use"; readonly pid: number }
  | { readonly _tag: "other-host"; readonly host: string; readonly pid: number }

const SINGLETONS = ["SingletonLock", "SingletonSocket", "SingletonCookie"] as const

/** Whether a live pid is plausibly the browser holding this profile (pids are reused after a crash). */
const holdsProfile = async (pid: number, userDataDir: string): Promise<boolean> => {
  if (process.platform !== "linux") return true
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => undefined)
  if (cmdline === undefined) return true
  if (cmdline.includes(userDataDir)) return true
  const exe = await fs.readlink(`/proc/${pid}/exe`).catch(() => "")
  return /chrom|brave|edge|vivaldi|opera/i.test(path.basename(exe))
}

/**
 * Chromium's SingletonLock is a symlink to "<host>-<pid>". When that process is gone (a crashed earlier
 * run), or its pid now belongs to something that is not a browser, the three Singleton files are removed
 * so the next launch is not refused. A lock from another host cannot be checked and is reported.
 */
export const clearStaleSingleton = (userDataDir: string): Effect.Effect<LockState> =>
  Effect.promise(async (): Promise<LockState> => {
    let target: string
    try {
      target = await fs.readlink(path.join(userDataDir, "SingletonLock"))
    } catch {
      return { _tag: "none" }
    }
    const m = /^(.*)-(\d+)$/.exec(target)
    if (m === null) return { _tag: "none" }
    const host = m[1]!
    const pid = Number(m[2])
    if (host !== os.hostname()) return { _tag: "other-host", host, pid }
    if (isAlive(pid) && (await holdsProfile(pid, userDataDir))) return { _tag: "in-use", pid }
    await Promise.all(SINGLETONS.map((f) => fs.rm(path.join(userDataDir, f), { force: true }).catch(() => undefined)))
    return { _tag: "removed", pid }
  })

// ---------------------------------------------------------------------------------------------------------
// The real browser pid behind a wrapper script

const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ksh", "busybox", "env"])

const procRead = (pid: number, file: string) => fs.readFile(`/proc/${pid}/${file}`, "utf8").catch(() => undefined)
const procExe = (pid: number) => fs.readlink(`/proc/${pid}/exe`).catch(() => undefined)

const looksLikeBrowser = async (pid: number, port: number): Promise<boolean> => {
  const cmdline = await procRead(pid, "cmdline")
  if (cmdline === undefined) return false
  const args = cmdline.split("\0")
  if (!args.includes(`--remote-debugging-port=${port}`) || args.some((a) => a.startsWith("--type="))) return false
  const exe = await procExe(pid)
  return exe === undefined || !SHELLS.has(path.basename(exe))
}

/**
 * The spawned pid, unless it is a wrapper that did not exec (Debian's /usr/bin/chromium does exec): then
 * the process of its group that carries our DevTools port and is not a helper (--type=...).
 */
export const resolveBrowserPid = (spawnedPid: number, port: number): Effect.Effect<number> =>
  Effect.promise(async () => {
    if (process.platform !== "linux") return spawnedPid
    if (await looksLikeBrowser(spawnedPid, port)) return spawnedPid
    const entries = await fs.readdir("/proc").catch(() => [] as Array<string>)
    const pids = entries.filter((e) => /^\d+$/.test(e)).map(Number).sort((a, b) => a - b)
    for (const pid of pids) {
      if (pid === spawnedPid) continue
      const stat = await procRead(pid, "stat")
      if (stat === undefined) continue
      // Fields after the parenthesised command name: state ppid pgrp ...
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
      if (pgrp !== spawnedPid) continue
      if (await looksLikeBrowser(pid, port)) return pid
    }
    return spawnedPid
  })

// ---------------------------------------------------------------------------------------------------------
// The process

interface Proc {
  readonly child: ChildProcess
  readonly pid: number
  readonly startedAt: Date
  readonly exit: Deferred.Deferred<BrowserExit>
  readonly exited: () => boolean
  readonly tail: () => string
  /** Records the real browser pid when it differs from the spawned one (a wrapper that did not exec). */
  readonly setBrowserPid: (pid: number) => void
  readonly stop: Effect.Effect<void>
}

// Never fall back from the group to the bare pid: once reaped, that pid may belong to someone else.
const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    // Windows has no process groups; there the browser's own pid is the best we can do.
    process.kill(process.platform === "win32" ? pgid : -pgid, signal)
  } catch {
    // already gone
  }
}

const signalPid = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** Whether any live (non-zombie) process is left in a process group. */
const groupAlive = (pgid: number): boolean => {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0)
      return true
    } catch {
      return false
    }
  }
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return false
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[2]) === pgid && fields[0] !== "Z") return true
    } catch {
      // gone meanwhile
    }
  }
  return false
}

// Last line of defence: if the gateway exits without closing its scopes (process.exit, a fatal error),
// the detached browsers must not outlive it.
const liveGroups = new Set<number>()
let exitHookInstalled = false
const trackGroup = (pid: number) => {
  liveGroups.add(pid)
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const g of liveGroups) signalGroup(g, "SIGKILL")
  })
}

const spawnBrowser = (opts: LaunchOptions): Proc => {
  const child = spawn(opts.executable, chromeArgs(opts), {
    detached: true,
    windowsHide: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: process.env
  })
  const startedAt = new Date()
  const exit = Deferred.unsafeMake<BrowserExit>(FiberId.none)
  let raw = ""
  let exited = false
  const append = (s: string) => {
    raw = (raw + s).slice(-16 * 1024)
  }
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (c: string) => append(c))
  child.stderr?.on("error", () => undefined)

  const finish = (code: number | null, signal: string | null) => {
    if (exited) return
    exited = true
    const complete = () =>
      Deferred.unsafeDone(
        exit,
        Exit.succeed({ code, signal, at: new Date().toISOString(), stderrTail: cleanTail(raw) })
      )
    // Let stderr drain, but do not wait on helpers that may still hold the pipe.
    if (child.stderr === null || child.stderr.readableEnded || child.pid === undefined) {
      complete()
      return
    }
    const timer = setTimeout(complete, 200)
    child.stderr.once("end", () => {
      clearTimeout(timer)
      complete()
    })
  }
  if (child.pid !== undefined) trackGroup(child.pid)
  child.once("exit", (code, signal) => {
    // The browser is gone: take any helper left in its group with it.
    if (child.pid !== undefined) {
      signalGroup(child.pid, "SIGKILL")
      liveGroups.delete(child.pid)
    }
    finish(code, signal)
  })
  child.once("error", (e) => {
    append(`\n${e.message}\n`)
    if (child.pid === undefined) finish(null, null)
  })

  const pid = child.pid ?? -1
  let browserPid = pid
  const awaitExit = (ms: number) => Deferred.await(exit).pipe(Effect.timeoutOption(ms))
  const stop = Effect.gen(function* () {
    if (pid <= 0) return
    if (!exited) {
      signalGroup(pid, "SIGTERM")
      const first = yield* awaitExit(TERM_GRACE_MS)
      if (first._tag === "None") {
        signalGroup(pid, "SIGKILL")
        yield* awaitExit(KILL_GRACE_MS)
      }
    }
    // Stragglers of the group (helpers that outlived the browser).
    signalGroup(pid, "SIGKILL")
    if (browserPid !== pid) {
      // Behind a wrapper: the wrapper's exit does not prove the browser is gone.
      const target = browserPid
      const gone = Effect.sync(() => !isAlive(target)).pipe(
        Effect.repeat({ until: (g) => g, schedule: Schedule.spaced(POLL_INTERVAL_MS) }),
        Effect.timeoutOption(KILL_GRACE_MS)
      )
      if ((yield* gone)._tag === "None") {
        signalPid(target, "SIGKILL")
        yield* gone
      }
    }
    // SIGKILL is immediate but dying is not: return once the group is really empty (bounded).
    yield* Effect.sync(() => groupAlive(pid)).pipe(
      Effect.repeat({ while: (alive) => alive, schedule: Schedule.spaced(20) }),
      Effect.timeoutOption(KILL_GRACE_MS)
    )
  }).pipe(Effect.withSpan("ChromeLauncher.stop"))

  return {
    child,
    pid,
    startedAt,
    exit,
    exited: () => exited,
    tail: () => cleanTail(raw),
    setBrowserPid: (p) => {
      browserPid = p
    },
    stop
  }
}

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

const describeExit = (e: BrowserExit): string =>
  e.signal !== null ? `was killed by ${e.signal}` : e.code !== null ? `exited with code ${e.code}` : "could not be started"

// ---------------------------------------------------------------------------------------------------------
// The service

const unavailable = (message: string) => new BrowserUnavailable({ message })

export class ChromeLauncher extends Effect.Service<ChromeLauncher>()("svc/ChromeLauncher", {
  effect: Effect.gen(function* () {
    const decor = yield* ProfileDecor
    const discovery = yield* CdpDiscovery

    const launch = (opts: LaunchOptions): Effect.Effect<LaunchedBrowser, BrowserUnavailable, Scope.Scope> =>
      Effect.gen(function* () {
        const port = opts.cdpPort
        const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
        const where = `the "${opts.profile}" browser`

        const state = yield* portState(discovery, port)
        if (state._tag === "cdp") {
          return yield* unavailable(
            `Port ${port} already answers the DevTools protocol (${state.browser}): another browser is using it. ` +
              `Stop that browser, or give this profile another port with browser.profiles.${opts.profile}.cdpPort in svc.json.`
          )
        }
        if (state._tag === "other") {
          return yield* unavailable(
            `Port ${port} is already in use by another program, so ${where} cannot listen there. Stop that program, ` +
              `or give this profile a free port (18800-18899) with browser.profiles.${opts.profile}.cdpPort in svc.json.`
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

        yield* Effect.tryPromise({
          try: () => fs.mkdir(opts.userDataDir, { recursive: true }),
          catch: (e) => unavailable(`Cannot create the profile directory ${opts.userDataDir}: ${String(e)}`)
        })
        const lock = yield* clearStaleSingleton(opts.userDataDir)
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

        // Chromium opens its DevTools port a few hundred ms after spawn: ask again until it answers.
        const ready = discovery.probe(port).pipe(
          Effect.tapError(() => Effect.sleep(POLL_INTERVAL_MS)),
          Effect.eventually
        )
        const died = Deferred.await(proc.exit).pipe(
          Effect.flatMap((e) =>
            Effect.fail(
              unavailable(
                `The browser (${opts.executable}) ${describeExit(e)} before its DevTools endpoint answered on port ${port}.` +
                  hints(e.stderrTail, opts) +
                  showTail(e.stderrTail)
              )
            )
          )
        )
        const version = yield* Effect.raceFirst(ready, died).pipe(
          Effect.timeoutFail({
            duration: timeoutMs,
            onTimeout: () =>
              unavailable(
                `The browser (${opts.executable}, pid ${proc.pid}) did not answer on its DevTools port ${port} within ` +
                  `${timeoutMs} ms and was stopped.${hints(proc.tail(), opts)}${showTail(proc.tail())}`
              )
          }),
          // Do not keep a half-started browser until the caller's scope closes.
          Effect.onError(() => proc.stop)
        )
        const elapsedMs = Date.now() - proc.startedAt.getTime()
        const pid = yield* resolveBrowserPid(proc.pid, port)
        proc.setBrowserPid(pid)

        return {
          pid,
          cdpPort: port,
          cdpUrl: `http://127.0.0.1:${port}`,
          webSocketDebuggerUrl: version.webSocketDebuggerUrl,
          browserVersion: version.browser ?? "",
          executable: opts.executable,
          userDataDir: opts.userDataDir,
          startedAt: proc.startedAt.toISOString(),
          elapsedMs,
          isRunning: () => !proc.exited() && (pid === proc.pid || isAlive(pid)),
          exit: Deferred.await(proc.exit),
          stderrTail: proc.tail
        } satisfies LaunchedBrowser
      }).pipe(Effect.withSpan("ChromeLauncher.launch", { attributes: { profile: opts.profile, port: opts.cdpPort } }))

    return { launch }
  }),
  dependencies: [ProfileDecor.Default, CdpDiscovery.Default]
}) {}
