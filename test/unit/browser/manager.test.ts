import { it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { BrowserManager } from "../../../src/browser/launch/BrowserManager.js"
import { Capture } from "../../../src/browser/snapshot/Capture.js"
import { Tabs } from "../../../src/browser/pages/Tabs.js"
import { ConfigStore } from "../../../src/config/ConfigStore.js"
import { browserServices } from "../../../src/browser/layer.js"
import { makeFakeWorld } from "../../support/fakeBrowser.js"

// The gateway's own browser logic over fake leaves: one launch per profile however many ask at once,
// crash detection, on-demand start, and the current tab.

const setup = (config: object = { browser: { defaultProfile: "svc" } }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-mgr-"))
  fs.writeFileSync(path.join(dir, "svc.json"), JSON.stringify(config))
  const world = makeFakeWorld()
  const layer = browserServices(world.layer).pipe(
    Layer.provideMerge(ConfigStore.Default),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", dir]]))))
  )
  return { dir, world, layer }
}

describe("BrowserManager over fake leaves", () => {
  it.scopedLive("launches once when many requests start the same profile at the same moment", () => {
    const { layer, world, dir } = setup()
    return Effect.gen(function*() {
      const browsers = yield* BrowserManager
      const results = yield* Effect.all(Array.from({ length: 5 }, () => browsers.start(undefined)), { concurrency: "unbounded" })
      expect(world.launches).toHaveLength(1)
      expect(results.filter((r) => r.launched)).toHaveLength(1)
      // No port set: the browser chooses one (0), nothing is written to svc.json, and status shows the real one.
      expect(world.launches[0]!.cdpPort).toBe(0)
      const saved = JSON.parse(fs.readFileSync(path.join(dir, "svc.json"), "utf8"))
      expect(saved.browser.profiles?.svc?.cdpPort).toBeUndefined()
      const status = results[0]!.status
      expect(status.cdpPort).toBe(41000)
      expect(status.cdpUrl).toBe("http://127.0.0.1:41000")
      const listed = (yield* browsers.listProfiles).profiles.find((p) => p.name === "svc")
      expect(listed).toMatchObject({ cdpPort: 41000, cdpUrl: "http://127.0.0.1:41000", running: true })
      expect(world.launches[0]).toMatchObject({ profile: "svc", color: "#FF6A00", userDataDir: path.join(dir, "browser/svc/user-data") })
    }).pipe(Effect.provide(layer))
  })

  it.scopedLive("reports a crash in the next status and launches again on the next use", () => {
    const { layer, world } = setup()
    return Effect.gen(function*() {
      const browsers = yield* BrowserManager
      const tabs = yield* Tabs
      const first = yield* browsers.start(undefined)
      yield* world.crash(first.status.cdpPort!)
      yield* Effect.yieldNow()
      const after = yield* browsers.status(undefined)
      expect(after).toMatchObject({ running: false, pid: null, lastExit: { signal: "SIGKILL" } })
      // On demand: listing tabs starts the managed browser again.
      const list = yield* tabs.list(undefined)
      expect(list.tabs).toHaveLength(1)
      expect(world.launches).toHaveLength(2)
      const again = yield* browsers.status(undefined)
      expect(again.running).toBe(true)
      expect(again.pid).not.toBe(first.status.pid)
    }).pipe(Effect.provide(layer))
  })

  it.scopedLive("tracks the current tab: the first tab, then what was opened or focused; never a guess", () => {
    const { layer, world } = setup()
    return Effect.gen(function*() {
      const tabs = yield* Tabs
      const capture = yield* Capture
      const initial = yield* tabs.list(undefined)
      expect(initial.tabs.map((t) => t.current)).toEqual([true])
      const a = yield* tabs.open(undefined, "https://a.example/")
      const b = yield* tabs.open(undefined, "https://b.example/")
      expect((yield* capture.ariaSnapshot({})).targetId).toBe(b.targetId)
      yield* tabs.focus(undefined, a.targetId)
      expect((yield* capture.ariaSnapshot({})).targetId).toBe(a.targetId)
      const listed = yield* tabs.list(undefined)
      expect(listed.tabs.filter((t) => t.current).map((t) => t.targetId)).toEqual([a.targetId])

      yield* tabs.close(undefined, a.targetId)
      const orphan = yield* Effect.flip(capture.ariaSnapshot({}))
      expect(orphan).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("has no current tab; pass a targetId") })
      // An explicit targetId still works.
      expect((yield* capture.ariaSnapshot({ targetId: b.targetId })).targetId).toBe(b.targetId)
      // Closed behind the gateway's back (by the page, or a person): said as such.
      const c = yield* tabs.open(undefined, "https://c.example/")
      const port = (yield* (yield* BrowserManager).status(undefined)).cdpPort!
      const list = world.browsers.get(port)!
      list.splice(list.findIndex((t) => t.targetId === c.targetId), 1)
      const gone = yield* Effect.flip(capture.screenshot({}))
      expect(gone).toMatchObject({ _tag: "Conflict", message: expect.stringContaining("current tab of profile \"svc\" was closed") })
      const missing = yield* Effect.flip(tabs.focus(undefined, "NOPE"))
      expect(missing).toMatchObject({ _tag: "NotFound", message: expect.stringContaining("svc browser tabs") })
    }).pipe(Effect.provide(layer))
  })

  it.scopedLive("stops what it launched when its scope closes", () => {
    const { layer, world } = setup()
    return Effect.gen(function*() {
      const port = yield* Effect.scoped(
        Effect.gen(function*() {
          const r = yield* (yield* BrowserManager).start(undefined)
          return r.status.cdpPort!
        }).pipe(Effect.provide(layer))
      )
      expect(world.browsers.has(port)).toBe(false)
    })
  })

  it.scopedLive("keeps a port set in svc.json; a profile without one is shown without a port until it runs", () => {
    const { layer, world } = setup({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: 18877 }, work: {} } } })
    return Effect.gen(function*() {
      const browsers = yield* BrowserManager
      expect((yield* browsers.start(undefined)).status).toMatchObject({ cdpPort: 18877, cdpUrl: "http://127.0.0.1:18877" })
      expect(world.launches[0]!.cdpPort).toBe(18877)
      expect(yield* browsers.status("work")).toMatchObject({ running: false, cdpPort: null, cdpUrl: null })
    }).pipe(Effect.provide(layer))
  })

  it.scopedLive("gives each managed profile its own port, colour and data dir", () => {
    const { layer, world, dir } = setup({
      browser: { defaultProfile: "svc", color: "#101010", profiles: { work: { color: "#00FF00" } } }
    })
    return Effect.gen(function*() {
      const browsers = yield* BrowserManager
      yield* browsers.start(undefined)
      yield* browsers.start("work")
      const [svc, work] = world.launches
      expect((yield* browsers.status(undefined)).cdpPort).not.toBe((yield* browsers.status("work")).cdpPort)
      expect(svc!.color).toBe("#101010")
      expect(work!.color).toBe("#00FF00")
      expect(work!.userDataDir).toBe(path.join(dir, "browser/work/user-data"))
    }).pipe(Effect.provide(layer))
  })
})
