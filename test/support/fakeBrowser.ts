import { Deferred, Effect, Layer } from "effect"
import { Cdp } from "../../src/browser/cdp/Cdp.js"
import type { CdpEndpoint } from "../../src/browser/cdp/endpoints.js"
import type { CdpTarget } from "../../src/browser/cdp/tabs.js"
import { type BrowserExit, ChromeLauncher, type LaunchOptions } from "../../src/browser/launch/ChromeLauncher.js"
import { ChromeLocator } from "../../src/browser/launch/ChromeLocator.js"
import { Trash } from "../../src/browser/launch/Trash.js"
import { NotFound } from "../../src/domain/errors.js"

// Fake leaves for the browser services: a "browser" is an in-memory tab list per CDP port, launched and
// crashed at will. They pin the gateway's own logic (on-demand start, crash detection, current tab)
// without Chromium; the end-to-end suites cover the real thing.

export interface FakeWorld {
  readonly launches: Array<LaunchOptions>
  /** Tabs per CDP port of a running fake browser. */
  readonly browsers: Map<number, Array<CdpTarget>>
  readonly crash: (port: number) => Effect.Effect<void>
  readonly layer: Layer.Layer<ChromeLocator | ChromeLauncher | Cdp | Trash>
}

const portOf = (ep: CdpEndpoint) => Number(new URL(ep.url).port)

export const makeFakeWorld = (): FakeWorld => {
  const launches: Array<LaunchOptions> = []
  const browsers = new Map<number, Array<CdpTarget>>()
  const exits = new Map<number, Deferred.Deferred<BrowserExit>>()
  let nextId = 1
  let nextPid = 5000
  let nextChosenPort = 41000

  const tabsOf = (ep: CdpEndpoint) => {
    const tabs = browsers.get(portOf(ep))
    return tabs === undefined
      ? Effect.fail(new NotFound({ message: `no fake browser on ${ep.url}` }))
      : Effect.succeed(tabs)
  }
  const unavailable = (ep: CdpEndpoint) =>
    Effect.dieMessage(`unexpected call to a fake browser that is not running at ${ep.url}`)

  const crash = (port: number) =>
    Effect.gen(function*() {
      browsers.delete(port)
      const exit = exits.get(port)
      if (exit !== undefined) {
        yield* Deferred.succeed(exit, { code: null, signal: "SIGKILL", at: new Date().toISOString(), stderrTail: "" })
      }
    })

  const launcher = ChromeLauncher.make({
    launch: (opts) =>
      Effect.gen(function*() {
        launches.push(opts)
        yield* Effect.sleep("5 millis") // a launch takes time: concurrent starts must not launch twice
        // Port 0: the browser chooses one, as Chromium does (a new one each launch).
        const port = opts.cdpPort === 0 ? nextChosenPort++ : opts.cdpPort
        const exit = yield* Deferred.make<BrowserExit>()
        exits.set(port, exit)
        browsers.set(port, [{ targetId: `T${nextId++}`, title: "", url: "about:blank", type: "page" }])
        yield* Effect.addFinalizer(() => crash(port))
        const pid = nextPid++
        return {
          pid,
          cdpPort: port,
          cdpUrl: `http://127.0.0.1:${port}`,
          webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/fake`,
          executable: opts.executable,
          userDataDir: opts.userDataDir,
          startedAt: new Date().toISOString(),
          elapsedMs: 5,
          isRunning: () => browsers.has(port),
          exit: Deferred.await(exit),
          stderrTail: () => ""
        }
      })
  })

  const cdp = Cdp.make({
    version: (ep) =>
      browsers.has(portOf(ep))
        ? Effect.succeed({ browser: "Fake/1", protocolVersion: "1.3", webSocketDebuggerUrl: "ws://fake" })
        : Effect.fail(new (class extends Error {})("down") as never),
    listTabs: (ep) => Effect.orElse(tabsOf(ep), () => unavailable(ep)) as never,
    openTab: (ep, url) =>
      Effect.map(tabsOf(ep), (tabs) => {
        const t = { targetId: `T${nextId++}`, title: "", url, type: "page" }
        tabs.push(t)
        return t
      }) as never,
    activateTab: (ep, targetId) =>
      Effect.flatMap(tabsOf(ep), (tabs) =>
        tabs.some((t) => t.targetId === targetId) ? Effect.void : Effect.fail(new NotFound({ message: "no tab" }))) as never,
    closeTab: (ep, targetId) =>
      Effect.flatMap(tabsOf(ep), (tabs) => {
        const i = tabs.findIndex((t) => t.targetId === targetId)
        if (i < 0) return Effect.fail(new NotFound({ message: "no tab" }))
        tabs.splice(i, 1)
        return Effect.void
      }) as never,
    ariaSnapshot: (ep, targetId) =>
      Effect.map(tabsOf(ep), (tabs) => {
        const t = tabs.find((x) => x.targetId === targetId)!
        return { snapshot: `- document "${t.url}"`, nodes: 1, truncated: false, url: t.url, title: t.title }
      }) as never,
    screenshot: () =>
      Effect.succeed({
        type: "png" as const,
        image: Uint8Array.from(Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")),
        width: 1,
        height: 1
      })
  })

  const locator = ChromeLocator.make({
    locate: () => Effect.succeed({ path: "/fake/chromium", kind: "chromium", source: "search" })
  })

  const trash = Trash.make({ moveToTrash: (dir) => Effect.succeed(`${dir}.trashed`) })

  return {
    launches,
    browsers,
    crash,
    layer: Layer.mergeAll(
      Layer.succeed(ChromeLauncher, launcher),
      Layer.succeed(Cdp, cdp),
      Layer.succeed(ChromeLocator, locator),
      Layer.succeed(Trash, trash)
    )
  }
}
