import { type ChildProcess, spawn } from "node:child_process"
import { Deferred, Effect, Exit, FiberId, Schedule } from "effect"
import { chromeArgs } from "./chromeFlags.js"
import type { BrowserExit, LaunchOptions } from "./ChromeLauncher.js"
import { groupAlive, isAlive, signalGroup, signalPid, trackGroup, untrackGroup } from "./processes.js"

// The spawned browser: detached in its own process group, its stderr tail kept for messages, its exit
// recorded once, and a stop that takes the whole group down (helpers included) within bounded time.

export const POLL_INTERVAL_MS = 15
const TERM_GRACE_MS = 3_000
const KILL_GRACE_MS = 2_000
const TAIL_BYTES = 2_048

// Lines every headless/containerised Chromium prints that say nothing about why it failed.
const NOISE = [/ERROR:dbus\//, /: unexpected operator$/, /^\s*$/]

/**
 * The browser websocket a Chromium names on stderr once its DevTools listen ("DevTools listening on ws://...",
 * a whole line: a chunk may end inside it). Undefined until that line has come.
 */
export const listeningLine = (stderr: string): string | undefined =>
  /^DevTools listening on (wss?:\/\/\S+)\r?\n/m.exec(stderr)?.[1]

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

export interface BrowserProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly startedAt: Date
  readonly exit: Deferred.Deferred<BrowserExit>
  /** The browser websocket, once the browser says on stderr that its DevTools listen (a wrapper may not pass it on). */
  readonly listening: Deferred.Deferred<string>
  readonly exited: () => boolean
  readonly tail: () => string
  /** Records the real browser pid when it differs from the spawned one (a wrapper that did not exec). */
  readonly setBrowserPid: (pid: number) => void
  /** Asks the browser to quit (SIGTERM to its group) and returns at once; `stop` still waits for it. */
  readonly quit: Effect.Effect<void>
  readonly stop: Effect.Effect<void>
}

/** Starts the browser; a start that fails after spawn returns (no such file, for one) completes `exit`. */
export const spawnBrowser = (opts: LaunchOptions): BrowserProcess => {
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
  const listening = Deferred.unsafeMake<string>(FiberId.none)
  let heard = false
  child.stderr?.on("data", (c: string) => {
    append(c)
    const url = heard ? undefined : listeningLine(raw)
    if (url !== undefined) {
      heard = true
      Deferred.unsafeDone(listening, Exit.succeed(url))
    }
  })
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
      untrackGroup(child.pid)
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
    // A browser whose exit was seen had its group ended then (above). Its numbers may since have been given
    // to other processes (pids are reused; a crash can be hours before the stop): nothing is signalled.
    if (pid <= 0 || exited) return
    signalGroup(pid, "SIGTERM")
    const first = yield* awaitExit(TERM_GRACE_MS)
    if (first._tag === "None") {
      signalGroup(pid, "SIGKILL")
      yield* awaitExit(KILL_GRACE_MS)
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
    listening,
    exited: () => exited,
    tail: () => cleanTail(raw),
    setBrowserPid: (p) => {
      browserPid = p
    },
    quit: Effect.sync(() => {
      if (pid > 0 && !exited) signalGroup(pid, "SIGTERM")
    }),
    stop
  }
}
