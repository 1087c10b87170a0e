import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { makeCdp } from "../../src/browser/cdp/Cdp.js"
import type { CdpEndpoint } from "../../src/browser/cdp/endpoints.js"
import { pngSize } from "../../src/browser/cdp/png.js"

// The Cdp service against a real headless Chromium and a real HTTP server on loopback.

const CHROMIUM = "/usr/bin/chromium"

let cdpPort = 0
let server: http.Server | undefined
let site = "" // http://127.0.0.1:<port>
let otherSite = "" // the same server as http://localhost:<port>: another site, so its iframes are out-of-process

const formPage = () => `<!doctype html><html><head><title>Svc test page</title></head><body>
<h1>Svc test page</h1>
<form>
  <label for="name">Your name</label> <input id="name" value="Ada">
  <label><input type="checkbox" checked> Subscribe</label>
  <button type="button">Send</button>
</form>
<a href="/docs">Docs</a>
<iframe title="same-site" src="/frame?label=Inner"></iframe>
<iframe title="cross-site" src="${otherSite}/frame?label=Remote"></iframe>
</body></html>`

const framePage = (label: string) =>
  `<!doctype html><title>frame</title><h2>${label} frame</h2><button>${label} button</button>`

const longPage = () =>
  `<!doctype html><title>Long</title><h1>Long page</h1><div style="height:5000px;background:linear-gradient(#fff,#000)"></div><p>end</p>`

/** About four rendered nodes per item: listitem, link, button, text. */
const nodesPage = (items: number) =>
  `<!doctype html><title>Nodes ${items}</title><ul>${
    Array.from({ length: items }, (_, i) => `<li><a href="#i${i}">Item ${i}</a> <button>Act ${i}</button> note ${i}</li>`)
      .join("")
  }</ul>`

const handler: http.RequestListener = (req, res) => {
  const u = new URL(req.url ?? "/", "http://x")
  res.setHeader("content-type", "text/html; charset=utf-8")
  switch (u.pathname) {
    case "/":
      return res.end(formPage())
    case "/frame":
      return res.end(framePage(u.searchParams.get("label") ?? "?"))
    case "/long":
      return res.end(longPage())
    case "/nodes":
      return res.end(nodesPage(Number(u.searchParams.get("items") ?? "100")))
    default:
      res.statusCode = 404
      return res.end("<title>404</title><h1>not here</h1>")
  }
}

const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 19000 + Math.floor(Math.random() * 1000)
    const ok = await new Promise<boolean>((resolve) => {
      const s = http.createServer()
      s.once("error", () => resolve(false))
      s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)))
    })
    if (ok) return port
  }
  throw new Error("no free port in 19000-19999")
}

const waitForCdp = async (port: number, deadline: number) => {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/version`)
      if (res.ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`Chromium did not answer CDP on ${port}`)
}

interface Launched {
  readonly process: ChildProcess
  readonly port: number
  readonly userDataDir: string
}

const launchChromium = async (): Promise<Launched> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cdp-e2e-"))
  const port = await freePort()
  const child = spawn(
    CHROMIUM,
    [
      "--headless=new",
      "--no-sandbox",
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${dir}`,
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "about:blank"
    ],
    { detached: true, stdio: "ignore" }
  )
  const launched = { process: child, port, userDataDir: dir }
  try {
    await waitForCdp(port, Date.now() + 30_000)
  } catch (e) {
    await kill(launched)
    throw e
  }
  return launched
}

/** Kills the browser's whole process group (renderers, GPU and zygote processes included). */
const kill = async (launched: Launched) => {
  if (launched.process.pid !== undefined) {
    try {
      process.kill(-launched.process.pid, "SIGKILL")
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  fs.rmSync(launched.userDataDir, { recursive: true, force: true })
}

let browser: Launched | undefined

beforeAll(async () => {
  server = http.createServer(handler)
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  site = `http://127.0.0.1:${port}`
  otherSite = `http://localhost:${port}`
  browser = await launchChromium()
  cdpPort = browser.port
})

afterAll(async () => {
  if (browser !== undefined) await kill(browser)
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
})

const endpoint = (): CdpEndpoint => ({
  url: `http://127.0.0.1:${cdpPort}`,
  timeoutMs: 2_000,
  handshakeTimeoutMs: 2_000,
  commandTimeoutMs: 10_000
})

/** Runs `self` until `done` holds (pages load asynchronously after openTab), for up to 10 s; the last answer. */
const eventually = <A, E, R>(self: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (true) {
      const a = yield* self
      if (done(a) || Date.now() > deadline) return a
      yield* Effect.sleep("100 millis")
    }
  })

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

const expectValidPng = (png: Uint8Array, width: number, height: number) => {
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE)
  expect(Buffer.from(png.subarray(12, 16)).toString("latin1")).toBe("IHDR")
  expect(pngSize(png)).toEqual({ width, height })
  expect(Buffer.from(png.subarray(png.length - 8, png.length - 4)).toString("latin1")).toBe("IEND")
}

describe("Cdp against real Chromium", () => {
  it.scopedLive("lists the tab Chromium started with", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const version = yield* cdp.version(endpoint())
      expect(version.browser).toMatch(/Chrome\/\d+/)
      expect(version.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${cdpPort}/devtools/browser/`))
      const tabs = yield* cdp.listTabs(endpoint())
      expect(tabs.length).toBeGreaterThanOrEqual(1)
      expect(tabs.every((t) => t.type === "page")).toBe(true)
      expect(tabs.some((t) => t.url === "about:blank")).toBe(true)
    }))

  it.scopedLive("opens, activates, snapshots, screenshots and closes a tab", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const ep = endpoint()
      const tab = yield* cdp.openTab(ep, `${site}/`)
      expect(tab).toMatchObject({ type: "page", url: `${site}/` })
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).toContain(tab.targetId)
      yield* cdp.activateTab(ep, tab.targetId)

      const snap = yield* eventually(
        cdp.ariaSnapshot(ep, tab.targetId, {}),
        (s) => s.snapshot.includes("Remote button") && s.snapshot.includes("Inner button")
      )
      expect(snap.title).toBe("Svc test page")
      expect(snap.url).toBe(`${site}/`)
      expect(snap.truncated).toBe(false)
      const lines = snap.snapshot.split("\n")
      expect(lines).toContain(`- heading "Svc test page" [level=1]`)
      expect(lines).toContain(`  - textbox "Your name": Ada`)
      expect(lines).toContain(`  - checkbox "Subscribe" [checked]`)
      expect(lines).toContain(`  - button "Send"`)
      expect(lines).toContain(`- link "Docs":`)
      expect(lines).toContain(`  - /url: ${site}/docs`)
      // Same-site iframe (same process) and cross-site iframe (out of process) are both inlined.
      expect(snap.snapshot).toContain(`- iframe "same-site":\n  - heading "Inner frame" [level=2]\n  - button "Inner button"`)
      expect(snap.snapshot).toContain(`- iframe "cross-site":\n  - heading "Remote frame" [level=2]\n  - button "Remote button"`)
      expect(snap.nodes).toBe(lines.filter((l) => !/^\s*- \/url:/.test(l)).length)

      const cut = yield* cdp.ariaSnapshot(ep, tab.targetId, { limit: 3 })
      expect(cut.truncated).toBe(true)
      expect(cut.nodes).toBe(3)
      const cutLines = cut.snapshot.split("\n")
      expect(cutLines.at(-1)).toMatch(/^# truncated: showed 3 of \d+ nodes; raise the limit with --limit <n>/)
      expect(cutLines.slice(0, -1).filter((l) => !/^\s*- \/url:/.test(l))).toHaveLength(3)

      const shot = yield* cdp.screenshot(ep, tab.targetId, {})
      expect(shot.width).toBeGreaterThan(100)
      expect(shot.height).toBeGreaterThan(100)
      expectValidPng(shot.image, shot.width, shot.height)

      yield* cdp.closeTab(ep, tab.targetId)
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).not.toContain(tab.targetId)
      const gone = yield* Effect.flip(cdp.ariaSnapshot(ep, tab.targetId, {}))
      expect(gone._tag).toBe("NotFound")
    }))

  it.scopedLive("a full-page screenshot is taller than the viewport", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const ep = endpoint()
      const tab = yield* cdp.openTab(ep, `${site}/long`)
      yield* eventually(cdp.ariaSnapshot(ep, tab.targetId, {}), (s) => s.snapshot.includes("Long page"))
      const viewport = yield* cdp.screenshot(ep, tab.targetId, {})
      const full = yield* cdp.screenshot(ep, tab.targetId, { fullPage: true })
      expectValidPng(full.image, full.width, full.height)
      expect(full.height).toBeGreaterThan(5000)
      expect(full.height).toBeGreaterThan(viewport.height)
      // The viewport capture includes the scrollbar; the page's content width does not.
      expect(full.width).toBeLessThanOrEqual(viewport.width)
      expect(full.width).toBeGreaterThan(viewport.width - 30)
      // Capturing beyond the viewport must not leave the page resized.
      const again = yield* cdp.screenshot(ep, tab.targetId, {})
      expect({ width: again.width, height: again.height }).toEqual({ width: viewport.width, height: viewport.height })
      yield* cdp.closeTab(ep, tab.targetId)
    }))

  it.scopedLive("screenshots a background tab (headless does not always paint one) without hanging", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const ep = { ...endpoint(), commandTimeoutMs: 2_000 }
      for (let i = 0; i < 6; i++) {
        const back = yield* cdp.openTab(ep, `${site}/long`)
        yield* Effect.sleep("200 millis")
        const front = [yield* cdp.openTab(ep, "about:blank"), yield* cdp.openTab(ep, "about:blank")]
        yield* Effect.sleep("300 millis")
        const shot = yield* cdp.screenshot(ep, back.targetId, {})
        expectValidPng(shot.image, shot.width, shot.height)
        for (const t of [...front, back]) yield* cdp.closeTab(ep, t.targetId)
      }
    }))

  it.scopedLive("an unknown targetId is NotFound; a bad URL is InvalidRequest", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const ep = endpoint()
      const unknown = "0123456789ABCDEF0123456789ABCDEF"
      for (
        const attempt of [
          cdp.ariaSnapshot(ep, unknown, {}),
          cdp.screenshot(ep, unknown, {}),
          cdp.activateTab(ep, unknown),
          Effect.asVoid(cdp.closeTab(ep, unknown))
        ]
      ) {
        const err = yield* Effect.flip(attempt)
        expect(err._tag).toBe("NotFound")
        expect(err.message).toContain("svc browser tabs")
      }
      // Schemes are the navigation policy's (Tabs.open asks it first); Cdp only reads the URL.
      const bad = yield* Effect.flip(cdp.openTab(ep, "not a url"))
      expect(bad._tag).toBe("InvalidRequest")
    }))

  it.scopedLive("a browser that crashes is BrowserUnavailable, not a hang", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const other = yield* Effect.acquireRelease(Effect.promise(() => launchChromium()), (b) => Effect.promise(() => kill(b)))
      const ep = { ...endpoint(), url: `http://127.0.0.1:${other.port}` }
      expect(yield* cdp.listTabs(ep)).not.toHaveLength(0) // the cached connection is now open
      yield* Effect.promise(() => kill(other))
      const started = Date.now()
      const err = yield* Effect.flip(cdp.listTabs(ep))
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toMatch(/no browser answers CDP at|closed while sending/)
      expect(err.message).toContain("svc browser start")
      // Its websocket URL, used directly, fails the same way.
      const direct = yield* Effect.flip(cdp.listTabs({ ...endpoint(), url: `ws://127.0.0.1:${other.port}/devtools/browser/x` }))
      expect(direct._tag).toBe("BrowserUnavailable")
    }))

  it.scopedLive("speaks to the browser websocket directly (ws:// endpoint)", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const { webSocketDebuggerUrl } = yield* cdp.version(endpoint())
      const ws = { ...endpoint(), url: webSocketDebuggerUrl }
      expect((yield* cdp.version(ws)).browser).toMatch(/Chrome\/\d+/)
      const viaWs = (yield* cdp.listTabs(ws)).map((t) => t.targetId)
      const viaHttp = (yield* cdp.listTabs(endpoint())).map((t) => t.targetId)
      expect(viaWs).toEqual(viaHttp)
    }))

  // Latency, with and without connection reuse. Opt in: SVC_CDP_BENCH=1 npx vitest run test/e2e/cdp.test.ts
  it.scopedLive.runIf(process.env.SVC_CDP_BENCH === "1")("latency (median of 10)", () =>
    Effect.gen(function*() {
      const ep = endpoint()
      const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
      const measure = <A, E>(self: Effect.Effect<A, E>) =>
        Effect.gen(function*() {
          yield* self // warm-up
          const times: Array<number> = []
          for (let i = 0; i < 10; i++) {
            const start = performance.now()
            yield* self
            times.push(performance.now() - start)
          }
          return median(times)
        })
      const small = yield* Effect.flatMap(makeCdp(), (c) => c.openTab(ep, `${site}/nodes?items=100`))
      const large = yield* Effect.flatMap(makeCdp(), (c) => c.openTab(ep, `${site}/nodes?items=1000`))
      const rows: Array<Record<string, string | number>> = []
      for (const reuse of [true, false]) {
        const cdp = yield* makeCdp({ reuseConnections: reuse })
        const s = yield* eventually(cdp.ariaSnapshot(ep, small.targetId, {}), (r) => r.snapshot.includes("Act 99"))
        const l = yield* eventually(
          cdp.ariaSnapshot(ep, large.targetId, { limit: 100_000 }),
          (r) => r.snapshot.includes("Act 999")
        )
        const opened: Array<string> = []
        const row = {
          reuse: String(reuse),
          listTabs: yield* measure(cdp.listTabs(ep)),
          openTab: yield* measure(Effect.map(cdp.openTab(ep, "about:blank"), (t) => opened.push(t.targetId))),
          [`snapshot ${s.nodes} nodes`]: yield* measure(cdp.ariaSnapshot(ep, small.targetId, {})),
          [`snapshot ${l.nodes} nodes (${Math.round(l.snapshot.length / 1000)}K chars)`]: yield* measure(
            cdp.ariaSnapshot(ep, large.targetId, { limit: 100_000 })
          ),
          screenshot: yield* measure(cdp.screenshot(ep, small.targetId, {}))
        }
        for (const id of opened) yield* cdp.closeTab(ep, id)
        rows.push(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "number" ? +v.toFixed(1) : v])))
        expect(row.listTabs).toBeLessThan(1_000)
      }
      console.table(rows)
      const cdp = yield* makeCdp()
      yield* cdp.closeTab(ep, small.targetId)
      yield* cdp.closeTab(ep, large.targetId)
    }), 120_000)
})
