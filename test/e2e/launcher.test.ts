import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "esbuild"
import { afterAll } from "vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { DiscoveryHttpClient } from "../../src/browser/cdp/discovery.js"
import { cleanTail, listeningLine } from "../../src/browser/launch/browserProcess.js"
import { chromeArgs, defaultHeadless, defaultNoSandbox } from "../../src/browser/launch/chromeFlags.js"
import { ChromeLauncher, type LaunchOptions } from "../../src/browser/launch/ChromeLauncher.js"
import { claimFreePort, portFree } from "../support/portClaims.js"

// The real Chromium of this machine, on loopback ports of the managed range, with throwaway profiles.

const CHROMIUM = "/usr/bin/chromium"
const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-launcher-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let dirCount = 0
const freshDir = () => {
  const d = path.join(root, `p${++dirCount}`, "user-data")
  fs.mkdirSync(path.dirname(d), { recursive: true })
  return d
}

// Spread over the range; skip anything already taken or claimed by a test file running beside this one.
let nextPort = 18800 + Math.floor(Math.random() * 90)
const freePort = Effect.promise(async () => {
  for (let i = 0; i < 100; i++) {
    const p = 18800 + ((nextPort++ - 18800) % 100)
    if (await claimFreePort(p)) return p
  }
  throw new Error("no free port in 18800-18899")
})

const options = (cdpPort: number, over: Partial<LaunchOptions> = {}): LaunchOptions => ({
  profile: "e2e",
  executable: CHROMIUM,
  userDataDir: freshDir(),
  cdpPort,
  headless: true,
  noSandbox: true,
  color: "#3366CC",
  ...over
})

const getJson = (url: string) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; body: unknown }>((resolve) => {
        const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
          let body = ""
          res.setEncoding("utf8")
          res.on("data", (c: string) => (body += c))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }))
        })
        req.on("error", () => resolve({ status: 0, body: null }))
      })
  )

/** Running: exists and is not a zombie (an exited process only waiting to be reaped by its parent). */
const alive = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    return false
  }
}

/** Live pids whose command line mentions this text (our user-data dir), zombies excluded. */
const pidsMentioning = (text: string): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8")
        if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false
        return fs.readFileSync(`/proc/${e}/cmdline`, "utf8").includes(text)
      } catch {
        return false
      }
    })
    .map(Number)

const script = (name: string, body: string) => {
  const file = path.join(root, name)
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}

/** The launcher over the same HTTP client the gateway gives it. */
const Launcher = ChromeLauncher.Default.pipe(Layer.provide(DiscoveryHttpClient))

const launch = (opts: LaunchOptions) =>
  Effect.flatMap(ChromeLauncher, (l) => l.launch(opts))

const failureMessage = <A>(exit: Exit.Exit<A, { readonly message: string }>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected the launch to fail")
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "None") throw new Error(`expected a failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value.message
}

describe("ChromeLauncher (real Chromium)", () => {
  it.live("starts a browser whose DevTools answer, and closing the scope leaves nothing behind", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const opts = options(port, { profile: "work", color: "#FF6A00" })
      const seen = yield* Effect.scoped(
        Effect.gen(function* () {
          const b = yield* launch(opts)
          const version = yield* getJson(`${b.cdpUrl}/json/version`)
          expect(b.cdpUrl).toBe(`http://127.0.0.1:${port}`)
          expect(version.status).toBe(200)
          expect((version.body as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl).toBe(b.webSocketDebuggerUrl)
          expect(b.webSocketDebuggerUrl.startsWith(`ws://127.0.0.1:${port}/devtools/browser/`)).toBe(true)
          expect(alive(b.pid)).toBe(true)
          expect(b.isRunning()).toBe(true)
          // The reported pid is the browser itself, not Debian's wrapper script.
          expect(path.basename(fs.readlinkSync(`/proc/${b.pid}/exe`))).toBe("chromium")
          expect(b.elapsedMs).toBeGreaterThan(0)
          expect(b.elapsedMs).toBeLessThan(20_000)
          // The profile is decorated before launch and Chromium kept the name.
          const localState = JSON.parse(fs.readFileSync(path.join(opts.userDataDir, "Local State"), "utf8"))
          expect(localState.profile.info_cache.Default.name).toBe("work")
          expect(pidsMentioning(opts.userDataDir).length).toBeGreaterThan(1) // browser + helpers
          return b
        })
      )
      expect(alive(seen.pid)).toBe(false)
      expect(seen.isRunning()).toBe(false)
      expect(yield* Effect.promise(() => portFree(port))).toBe(true)
      expect(pidsMentioning(opts.userDataDir)).toEqual([])
      const exit = yield* seen.exit
      expect(exit.signal ?? exit.code).not.toBeNull()
    }).pipe(Effect.provide(Launcher))
  )

  it.live("work given to whileStarting runs once the browser is spawned, before the launch answers", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const seen: Array<string> = []
      const opts = options(port, {
        whileStarting: Effect.sync(() => {
          seen.push(pidsMentioning(opts.userDataDir).length > 0 ? "spawned" : "not spawned")
        })
      })
      yield* Effect.scoped(
        Effect.gen(function* () {
          const b = yield* launch(opts)
          seen.push("answered")
          expect(b.isRunning()).toBe(true)
        })
      )
      expect(seen).toEqual(["spawned", "answered"])
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a browser that dies on its own completes `exit` with the signal, for crash detection", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const b = yield* launch(options(yield* freePort))
        process.kill(b.pid, "SIGKILL")
        const exit = yield* b.exit.pipe(Effect.timeout("5 seconds"))
        expect(exit.signal).toBe("SIGKILL")
        expect(exit.code).toBeNull()
        expect(Number.isNaN(Date.parse(exit.at))).toBe(false)
        expect(b.isRunning()).toBe(false)
      })
    ).pipe(Effect.provide(Launcher))
  )

  it.live("an executable that is not a browser fails fast with its exit code", () =>
    Effect.gen(function* () {
      const started = Date.now()
      const exit = yield* Effect.exit(Effect.scoped(launch(options(yield* freePort, { executable: "/bin/false" }))))
      const message = failureMessage(exit)
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(message).toContain("/bin/false")
      expect(message).toContain("exited with code 1")
      expect(message).toContain("before its DevTools endpoint answered")
    }).pipe(Effect.provide(Launcher))
  )

  it.live("the failure message carries what the browser printed on stderr", () =>
    Effect.gen(function* () {
      const bad = script("prints-and-dies", 'echo "FATAL: cannot open the profile: Permission denied" >&2\nexit 3')
      const exit = yield* Effect.exit(Effect.scoped(launch(options(yield* freePort, { executable: bad }))))
      const message = failureMessage(exit)
      expect(message).toContain("exited with code 3")
      expect(message).toContain("FATAL: cannot open the profile: Permission denied")
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a browser that never answers is stopped after the start timeout", () =>
    Effect.gen(function* () {
      const hang = script("hangs", 'echo "starting..." >&2\nexec sleep 30')
      const started = Date.now()
      const exit = yield* Effect.exit(
        Effect.scoped(launch(options(yield* freePort, { executable: hang, startTimeoutMs: 600 })))
      )
      const message = failureMessage(exit)
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(message).toContain("within 600 ms")
      expect(message).toContain("starting...")
      const pid = Number(/pid (\d+)/.exec(message)?.[1])
      expect(pid).toBeGreaterThan(0)
      expect(alive(pid)).toBe(false)
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a port where another browser already answers CDP is refused, naming the port and the fix", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const port = yield* freePort
        const first = yield* launch(options(port))
        const exit = yield* Effect.exit(Effect.scoped(launch(options(port, { profile: "second" }))))
        const message = failureMessage(exit)
        expect(message).toContain(`Port ${port}`)
        expect(message).toContain("DevTools")
        expect(message).toContain("browser.profiles.second.cdpPort")
        expect(first.isRunning()).toBe(true)
      })
    ).pipe(Effect.provide(Launcher))
  )

  it.live("a port held by some other program is refused without starting a browser", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      // Some other local service: speaks HTTP, but not the DevTools protocol.
      const server = http.createServer((_req, res) => res.writeHead(404, { connection: "close" }).end("no"))
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()))),
        () => Effect.promise(() => new Promise<void>((r) => server.close(() => r())))
      )
      const opts = options(port)
      const exit = yield* Effect.exit(Effect.scoped(launch(opts)))
      const message = failureMessage(exit)
      expect(message).toContain(`Port ${port} is already in use by another program`)
      expect(message).toContain("browser.profiles.e2e.cdpPort")
      expect(pidsMentioning(opts.userDataDir)).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(Launcher))
  )

  it.live("a stale SingletonLock left by a crashed run does not block the next launch", () =>
    Effect.gen(function* () {
      const opts = options(yield* freePort)
      fs.mkdirSync(opts.userDataDir, { recursive: true })
      // A pid that cannot be alive (above pid_max).
      fs.symlinkSync(`${os.hostname()}-4194305`, path.join(opts.userDataDir, "SingletonLock"))
      fs.symlinkSync("12345", path.join(opts.userDataDir, "SingletonCookie"))
      const b = yield* Effect.scoped(
        Effect.gen(function* () {
          const b = yield* launch(opts)
          expect(b.isRunning()).toBe(true)
          const lock = fs.readlinkSync(path.join(opts.userDataDir, "SingletonLock"))
          expect(lock).toBe(`${os.hostname()}-${b.pid}`)
          return b
        })
      )
      expect(alive(b.pid)).toBe(false)
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a profile directory that a running browser holds is refused, naming that browser's pid", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const opts = options(yield* freePort)
        const first = yield* launch(opts)
        const message = failureMessage(
          yield* Effect.exit(Effect.scoped(launch({ ...opts, cdpPort: yield* freePort })))
        )
        expect(message).toContain(`${opts.userDataDir} is in use by another browser process (pid ${first.pid})`)
        expect(first.isRunning()).toBe(true)
      })
    ).pipe(Effect.provide(Launcher))
  )

  it.live("a lock whose pid now belongs to a process that is not a browser is treated as stale", () =>
    Effect.gen(function* () {
      const opts = options(yield* freePort)
      fs.mkdirSync(opts.userDataDir, { recursive: true })
      fs.symlinkSync(`${os.hostname()}-${process.pid}`, path.join(opts.userDataDir, "SingletonLock"))
      const b = yield* Effect.scoped(launch(opts))
      expect(b.pid).not.toBe(process.pid)
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a lock taken on another computer is reported with the file to delete", () =>
    Effect.gen(function* () {
      const opts = options(yield* freePort)
      fs.mkdirSync(opts.userDataDir, { recursive: true })
      fs.symlinkSync("old-container-4242", path.join(opts.userDataDir, "SingletonLock"))
      const message = failureMessage(yield* Effect.exit(Effect.scoped(launch(opts))))
      expect(message).toContain('locked by a browser on another computer ("old-container", pid 4242)')
      expect(message).toContain(path.join(opts.userDataDir, "SingletonLock"))
      expect(fs.readlinkSync(path.join(opts.userDataDir, "SingletonLock"))).toBe("old-container-4242")
    }).pipe(Effect.provide(Launcher))
  )

  it.live("behind a wrapper script that does not exec, the reported pid is the real browser", () =>
    Effect.gen(function* () {
      const wrapper = script("wrapper", `${CHROMIUM} "$@"\necho "wrapper done" >&2`)
      const opts = options(yield* freePort, { executable: wrapper })
      const b = yield* Effect.scoped(
        Effect.gen(function* () {
          const b = yield* launch(opts)
          expect(path.basename(fs.readlinkSync(`/proc/${b.pid}/exe`))).toBe("chromium")
          const cmdline = fs.readFileSync(`/proc/${b.pid}/cmdline`, "utf8").split("\0")
          expect(cmdline).toContain(`--remote-debugging-port=${opts.cdpPort}`)
          expect(cmdline.some((a) => a.startsWith("--type="))).toBe(false)
          return b
        })
      )
      expect(alive(b.pid)).toBe(false)
      expect(pidsMentioning(opts.userDataDir)).toEqual([])
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a port the browser chooses is answered once DevToolsActivePort names this run, and that file is owner-only", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 3; i++) {
        const opts = options(0)
        yield* Effect.scoped(
          Effect.gen(function* () {
            const b = yield* launch(opts)
            const file = path.join(opts.userDataDir, "DevToolsActivePort")
            const [port, browserPath] = fs.readFileSync(file, "utf8").split("\n")
            expect(Number(port)).toBe(b.cdpPort)
            expect(b.webSocketDebuggerUrl).toBe(`ws://127.0.0.1:${b.cdpPort}${browserPath}`)
            expect(fs.statSync(file).mode & 0o777).toBe(0o600)
          })
        )
      }
    }).pipe(Effect.provide(Launcher))
  )

  it.live("behind a wrapper that keeps the browser's stderr, the DevTools port is still found by asking it", () =>
    Effect.gen(function* () {
      const wrapper = script("quiet-wrapper", `exec ${CHROMIUM} "$@" 2>/dev/null`)
      for (const cdpPort of [yield* freePort, 0]) {
        yield* Effect.scoped(
          Effect.gen(function* () {
            const b = yield* launch(options(cdpPort, { executable: wrapper }))
            const version = yield* getJson(`${b.cdpUrl}/json/version`)
            expect((version.body as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl).toBe(b.webSocketDebuggerUrl)
            if (cdpPort !== 0) expect(b.cdpPort).toBe(cdpPort)
          })
        )
      }
    }).pipe(Effect.provide(Launcher))
  )

  it.live("a gateway that exits without closing its scopes takes its browser with it", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const userDataDir = freshDir()
      // A tiny program that launches a browser and then calls process.exit mid-scope.
      const entry = path.join(root, "exits-abruptly.mjs")
      yield* Effect.promise(() =>
        build({
          stdin: {
            contents: `
              import { Effect, Layer } from "effect"
              import { DiscoveryHttpClient } from ${JSON.stringify(path.resolve("src/browser/cdp/discovery.ts"))}
              import { ChromeLauncher } from ${JSON.stringify(path.resolve("src/browser/launch/ChromeLauncher.ts"))}
              const opts = ${JSON.stringify({ ...options(port), userDataDir })}
              Effect.runFork(Effect.scoped(Effect.gen(function* () {
                const b = yield* (yield* ChromeLauncher).launch(opts)
                console.log(JSON.stringify({ pid: b.pid }))
                process.exit(0)
              })).pipe(Effect.provide(ChromeLauncher.Default.pipe(Layer.provide(DiscoveryHttpClient)))))`,
            resolveDir: process.cwd(),
            loader: "ts"
          },
          bundle: true,
          platform: "node",
          format: "esm",
          // The node HTTP client brings undici, which requires node's builtins: give the ESM bundle a require.
          banner: { js: `import { createRequire } from "node:module"; const require = createRequire(import.meta.url);` },
          outfile: entry,
          logLevel: "silent"
        })
      )
      const out = execFileSync(process.execPath, [entry], { encoding: "utf8", timeout: 20_000 })
      const { pid } = JSON.parse(out.trim().split("\n").at(-1)!) as { pid: number }
      // SIGKILL is delivered at once, but a big process takes a moment to finish dying.
      for (let i = 0; i < 40 && (alive(pid) || pidsMentioning(userDataDir).length > 0); i++) {
        yield* Effect.sleep("50 millis")
      }
      expect(alive(pid)).toBe(false)
      expect(pidsMentioning(userDataDir)).toEqual([])
    })
  )

  it.live("interrupting a launch in progress stops the half-started browser", () =>
    Effect.gen(function* () {
      const opts = options(yield* freePort)
      const fiber = yield* Effect.fork(Effect.scoped(launch(opts)))
      // Wait until the browser process exists, then give up on it.
      for (let i = 0; i < 100 && pidsMentioning(opts.userDataDir).length === 0; i++) yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(fiber)
      expect(pidsMentioning(opts.userDataDir)).toEqual([])
    }).pipe(Effect.provide(Launcher))
  )
})

describe("launch flags and defaults", () => {
  it("passes the managed-browser switches, headless and no-sandbox only when asked, about:blank last", () => {
    const base = options(18850, { userDataDir: "/state/browser/svc/user-data" })
    const args = chromeArgs(base)
    expect(args).toEqual(
      expect.arrayContaining([
        "--remote-debugging-port=18850",
        "--remote-debugging-address=127.0.0.1",
        "--user-data-dir=/state/browser/svc/user-data",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-features=Translate,MediaRouter,BackForwardCache,WebUIOmniboxPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI",
        "--password-store=basic",
        "--use-mock-keychain",
        "--headless=new",
        "--no-sandbox"
      ])
    )
    expect(args.some((a) => a.startsWith("--window-size="))).toBe(true)
    expect(args.at(-1)).toBe("about:blank")
    const headed = chromeArgs({ ...base, headless: false, noSandbox: false })
    expect(headed).not.toContain("--headless=new")
    expect(headed).not.toContain("--no-sandbox")
    // The omnibox's own popups stay as they are where a person sees them.
    expect(headed).toContain("--disable-features=Translate,MediaRouter,BackForwardCache")
  })

  it("is headless on Linux without a display, headed with X11 or Wayland, headed on macOS and Windows", () => {
    expect(defaultHeadless({}, "linux")).toBe(true)
    expect(defaultHeadless({ DISPLAY: ":0" }, "linux")).toBe(false)
    expect(defaultHeadless({ WAYLAND_DISPLAY: "wayland-0" }, "linux")).toBe(false)
    expect(defaultHeadless({}, "darwin")).toBe(false)
    expect(defaultHeadless({}, "win32")).toBe(false)
  })

  it("turns the sandbox off only for root", () => {
    expect(defaultNoSandbox(0)).toBe(true)
    expect(defaultNoSandbox(1000)).toBe(false)
  })

  it("hears the DevTools websocket from the browser's stderr only once its line is whole", () => {
    const line = "DevTools listening on ws://127.0.0.1:40217/devtools/browser/5d1c0b7e-1f7a-4c55-9a36-0d6f3b0d2d11"
    expect(listeningLine("[12:34:56.789:WARNING:chrome_main.cc] something\n\n")).toBeUndefined()
    expect(listeningLine(`\n${line.slice(0, 40)}`)).toBeUndefined()
    expect(listeningLine(`\n${line}`)).toBeUndefined()
    expect(listeningLine(`noise\n\n${line}\n`)).toBe(line.slice("DevTools listening on ".length))
    expect(listeningLine(`${line}\r\nmore`)).toBe(line.slice("DevTools listening on ".length))
    expect(listeningLine(`a log that says "${line}"\n`)).toBeUndefined()
  })

  it("keeps the end of stderr without dbus noise or the wrapper's shell warning", () => {
    const raw = [
      "/usr/bin/chromium: 9: [: 25276063744: unexpected operator",
      "[1:2:3/4.5:ERROR:dbus/bus.cc:405] Failed to connect to the bus",
      "real problem",
      ...Array.from({ length: 400 }, (_, i) => `line ${i}`)
    ].join("\n")
    const tail = cleanTail(raw)
    expect(tail).not.toContain("dbus")
    expect(tail).not.toContain("unexpected operator")
    expect(tail.endsWith("line 399")).toBe(true)
    expect(tail.length).toBeLessThanOrEqual(2048)
    expect(tail.startsWith("line ")).toBe(true)
    expect(cleanTail(raw.split("\n").slice(0, 3).join("\n"))).toBe("real problem")
  })
})

// Measured start-up: `SVC_MEASURE_START=5 npx vitest run test/e2e/launcher.test.ts` prints the median.
describe.runIf(process.env.SVC_MEASURE_START !== undefined)("start-up time", () => {
  it.live("median spawn-to-CDP-ready", () =>
    Effect.gen(function* () {
      const n = Number(process.env.SVC_MEASURE_START) || 5
      const times: Array<number> = []
      for (let i = 0; i < n; i++) {
        const port = yield* freePort
        times.push(yield* Effect.scoped(Effect.map(launch(options(port)), (b) => b.elapsedMs)))
      }
      times.sort((a, b) => a - b)
      const version = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8" }).trim()
      console.log(`${version}: start-to-CDP-ready ms ${times.join(", ")}; median ${times[Math.floor(n / 2)]}`)
    }).pipe(Effect.provide(Launcher))
  )
})
