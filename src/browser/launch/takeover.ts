import { Effect, Schedule, type Scope } from "effect"
import type { CdpVersion } from "../cdp/discovery.js"
import type { BrowserExit, LaunchedBrowser, LaunchOptions } from "./ChromeLauncher.js"
import {
  browsersWith,
  commandLine,
  groupAlive,
  groupCarries,
  hasSwitch,
  isAlive,
  processGroup,
  signalGroup,
  signalPid,
  trackGroup,
  untrackGroup
} from "./processes.js"
import { lockHolder } from "./singletonLock.js"

// A gateway that dies without closing its scopes (SIGKILL, a crash of node) leaves its detached Chromium
// running on the profile's DevTools port (the configured one, or the one it chose, which its
// DevToolsActivePort names: see activePort.ts). The next gateway takes that browser over instead of refusing the
// port: it is the profile's own browser (its user-data dir, its port), its tabs are the agent's work, and
// ending it would lose them. Once taken over it is stopped like a launched one (`svc browser stop`, gateway
// shutdown). One that cannot be taken over (hung on the port, or killed while starting) is ended and a fresh
// one launched. A browser on that port with another user-data dir is someone else's and is left alone.

const TERM_GRACE_MS = 3_000
const KILL_GRACE_MS = 2_000
const EXIT_POLL_MS = 250

/**
 * The pid of the browser that runs with this user-data dir and DevTools port, if there is one: the process
 * its SingletonLock names (checked against its command line where the system shows it: /proc on Linux,
 * `ps` elsewhere), else on Linux a process started with both switches. `strict`: only on the evidence of a
 * command line (before ending a process rather than attaching to it).
 */
export const findOwnBrowser = (userDataDir: string, port: number, strict = false): Effect.Effect<number | undefined> =>
  Effect.promise(async () => {
    // As chromeFlags.ts passes them.
    const switches = [`--user-data-dir=${userDataDir}`, `--remote-debugging-port=${port}`]
    const locked = await lockHolder(userDataDir)
    if (locked !== undefined) {
      const line = await commandLine(locked)
      // A system that shows no command line: the live lock holder of our profile dir is the best evidence.
      if (line === undefined ? !strict : switches.every((s) => hasSwitch(line, s))) return locked
    }
    const found = await browsersWith(switches)
    return found.length === 1 ? found[0] : undefined
  })

/** The process group to signal for a browser: its own (launched detached), never one we belong to. */
const groupOf = (pid: number) =>
  Effect.promise(async () => {
    const [group, ownGroup] = await Promise.all([processGroup(pid), processGroup(process.pid)])
    return group !== undefined && group !== ownGroup ? group : undefined
  })

/** Ends a browser that is not our child: SIGTERM, then SIGKILL, then whatever is left of its group. */
const end = (pid: number, pgid: number | undefined) =>
  Effect.gen(function*() {
    const signal = (s: NodeJS.Signals) => (pgid !== undefined ? signalGroup(pgid, s) : signalPid(pid, s))
    const gone = (ms: number) =>
      Effect.sync(() => !isAlive(pid)).pipe(
        Effect.repeat({ until: (g) => g, schedule: Schedule.spaced(20) }),
        Effect.timeoutOption(ms)
      )
    if (isAlive(pid)) {
      signal("SIGTERM")
      if ((yield* gone(TERM_GRACE_MS))._tag === "None") {
        signal("SIGKILL")
        yield* gone(KILL_GRACE_MS)
      }
    }
    if (pgid !== undefined) {
      signalGroup(pgid, "SIGKILL")
      yield* Effect.sync(() => groupAlive(pgid)).pipe(
        Effect.repeat({ while: (alive) => alive, schedule: Schedule.spaced(20) }),
        Effect.timeoutOption(KILL_GRACE_MS)
      )
      untrackGroup(pgid)
    }
  }).pipe(Effect.withSpan("ChromeLauncher.endLeftBrowser"))

/**
 * Ends the profile's own browser that cannot be taken over (it holds the port or the profile but does not
 * answer the DevTools protocol: hung, or killed with its gateway while starting), so a fresh one can start.
 */
export const endOwnBrowser = (pid: number): Effect.Effect<void> => Effect.flatMap(groupOf(pid), (pgid) => end(pid, pgid))

/** The browser `pid` (answering on `port`) as a scoped resource, as if launched: closing the scope stops it and its helpers. */
export const adoptBrowser = (
  pid: number,
  opts: LaunchOptions,
  port: number,
  version: CdpVersion
): Effect.Effect<LaunchedBrowser, never, Scope.Scope> =>
  Effect.gen(function*() {
    const t0 = Date.now()
    const pgid = yield* groupOf(pid)
    // The stop may come long after the browser died (a crash, a user's kill): by then its pid and group
    // number may be other programs'. It ends only what still carries this profile's user-data dir.
    const own = `--user-data-dir=${opts.userDataDir}`
    const stillOurs = Effect.promise(async () => {
      if (isAlive(pid)) {
        const line = await commandLine(pid)
        if (line === undefined || hasSwitch(line, own)) return true
      }
      return pgid !== undefined && groupCarries(pgid, own)
    })
    const stop = Effect.flatMap(stillOurs, (ours) =>
      ours ? end(pid, pgid) : Effect.sync(() => pgid !== undefined && untrackGroup(pgid))
    )
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        if (pgid !== undefined) trackGroup(pgid)
      }),
      () => stop
    )
    // Not our child: its end is noticed by polling, and how it ended cannot be known.
    const exit: Effect.Effect<BrowserExit> = Effect.sync(() => isAlive(pid)).pipe(
      Effect.repeat({ while: (alive) => alive, schedule: Schedule.spaced(EXIT_POLL_MS) }),
      Effect.zipRight(Effect.sync(() => ({ code: null, signal: null, at: new Date().toISOString(), stderrTail: "" })))
    )
    return {
      pid,
      cdpPort: port,
      cdpUrl: `http://127.0.0.1:${port}`,
      webSocketDebuggerUrl: version.webSocketDebuggerUrl,
      executable: opts.executable,
      userDataDir: opts.userDataDir,
      startedAt: new Date(t0).toISOString(),
      elapsedMs: Date.now() - t0,
      isRunning: () => isAlive(pid),
      exit,
      stderrTail: () => "",
      takenOver: true
    } satisfies LaunchedBrowser
  })
