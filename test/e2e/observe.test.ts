import { Cause, ConfigProvider, Effect, Exit, Layer, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeTestPort, launchTestChromium, type TestChromium } from "../support/chromium.js"
import { makeCdp } from "../../src/browser/cdp/Cdp.js"
import type { CdpEndpoint } from "../../src/browser/cdp/endpoints.js"
import { ConfigStore } from "../../src/config/ConfigStore.js"
import { Dialogs } from "../../src/browser/inspect/Dialogs.js"
import { Observe } from "../../src/browser/inspect/Observe.js"
import { PlaywrightSessions } from "../../src/browser/pages/Playwright.js"

// Console, errors, requests, response bodies, traces and dialogs against a real headless Chromium and pages
// served on loopback, through the same PlaywrightSessions the gateway uses.


// ---------------------------------------------------------------------------------------------------------
// Pages

const consolePage = `<!doctype html><title>Console</title><p id="out">ready</p><script>
console.debug("dbg line"); console.info("info line"); console.log("log line", 42);
console.warn("warn line"); console.error("error line");
</script>`

const throwPage = `<!doctype html><title>Throw</title><script>
setTimeout(() => { throw new TypeError("boom from page") }, 0)
</script>`

const fetchPage = `<!doctype html><title>Fetch</title><p id="out">-</p><script>
window.go = async () => {
  const a = await fetch("/api/ok"); const b = await fetch("/api/missing"); const c = await fetch("/api/big?x=1")
  await Promise.all([a.text(), b.text(), c.text()])
  return [a.status, b.status, c.status]
}
window.later = (ms) => setTimeout(() => fetch("/api/later?n=" + ms).then((r) => r.text()), ms)
</script>`

const dialogPage = `<!doctype html><title>Dialogs</title><p id="out">-</p>
<button id="p" onclick="out.textContent = 'prompt:' + prompt('Your name?', 'nobody')">Prompt</button>
<button id="c" onclick="out.textContent = 'confirm:' + confirm('Sure?')">Confirm</button>
<button id="a" onclick="alert('Hello there'); out.textContent = 'after alert'">Alert</button>`

const big = JSON.stringify({ items: Array.from({ length: 3_000 }, (_, i) => ({ id: i, name: `item ${i}` })) })
const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")

const handler: http.RequestListener = (req, res) => {
  const u = new URL(req.url ?? "/", "http://x")
  const html = (body: string) => {
    res.setHeader("content-type", "text/html; charset=utf-8")
    res.end(body)
  }
  switch (u.pathname) {
    case "/console":
      return html(consolePage)
    case "/throw":
      return html(throwPage)
    case "/fetch":
      return html(fetchPage)
    case "/dialogs":
      return html(dialogPage)
    case "/blank":
      return html("<!doctype html><title>Blank</title><p>blank</p>")
    case "/api/ok":
      res.setHeader("content-type", "text/plain")
      return res.end("fine")
    case "/api/big":
      res.setHeader("content-type", "application/json")
      return res.end(big)
    case "/api/bin":
      res.setHeader("content-type", "image/png")
      return res.end(png)
    case "/api/later":
      res.setHeader("content-type", "application/json")
      return res.end(JSON.stringify({ later: u.searchParams.get("n") }))
  }
  res.statusCode = 404
  res.setHeader("content-type", "text/plain")
  res.end("no such thing")
}

// ---------------------------------------------------------------------------------------------------------
// Chromium

type Launched = TestChromium

const freePort = freeTestPort
const kill = (launched: Launched) => launched.kill()
const launch = (port: number, userDataDir: string): Promise<Launched> => launchTestChromium({ port, userDataDir })

// ---------------------------------------------------------------------------------------------------------
// Harness

type Services = Observe | Dialogs | PlaywrightSessions

let server: http.Server | undefined
let site = ""
let browser: Launched | undefined
let userDataDir = ""
let traceDir = ""
let runtime: ManagedRuntime.ManagedRuntime<Services, unknown> | undefined

const endpoint = (): CdpEndpoint => ({ url: `http://127.0.0.1:${browser!.port}`, timeoutMs: 2_000, handshakeTimeoutMs: 3_000 })
const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime!.runPromise(effect)
const exitOf = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime!.runPromiseExit(effect)

const failure = (exit: Exit.Exit<unknown, unknown>): { _tag: string; message: string } => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const err = Cause.failureOption(exit.cause)
  if (err._tag === "None") throw new Error(`expected a failure, got ${Cause.pretty(exit.cause)}`)
  return err.value as { _tag: string; message: string }
}

const openTab = (url: string) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(makeCdp({ reuseConnections: false }), (c) => c.openTab(endpoint(), url)))).then(
    (t) => t.targetId
  )

const PROFILE = "svc"

interface Tab {
  readonly page: Page
  readonly ref: { readonly profile: string; readonly targetId: string }
}

const tabAt = async (url: string, profile = PROFILE): Promise<Tab> => {
  const targetId = await openTab(url)
  const page = await run(Effect.flatMap(PlaywrightSessions, (s) => s.page(profile, endpoint(), targetId)))
  // The document's own word, not the library's: a tab opened over CDP may load before the library attaches to
  // it, and then the library can miss its load event (once, waiting 30 s: "networkidle" fired, "load" never).
  await page.waitForFunction("document.readyState === \"complete\"")
  return { page, ref: { profile, targetId } }
}

const observe = <A, E>(f: (o: Observe) => Effect.Effect<A, E>) => run(Effect.flatMap(Observe, f))
const dialogs = <A, E>(f: (d: Dialogs) => Effect.Effect<A, E>) => run(Effect.flatMap(Dialogs, f))

/** Polls until check passes (events reach the gateway a moment after the page emits them). */
const eventually = async <A>(read: () => Promise<A>, check: (a: A) => boolean, ms = 5_000): Promise<A> => {
  const deadline = Date.now() + ms
  while (true) {
    const a = await read()
    if (check(a) || Date.now() > deadline) return a
    await new Promise((r) => setTimeout(r, 20))
  }
}

beforeAll(async () => {
  server = http.createServer(handler)
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r))
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-observe-e2e-"))
  traceDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-observe-traces-"))
  browser = await launch(await freePort(), userDataDir)
  // Dialogs reads browser.dialogHoldMs: a config store on a state dir of the test's own (no svc.json: defaults).
  const store = ConfigStore.Default.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", traceDir + "/state"]]))))
  )
  runtime = ManagedRuntime.make(Layer.mergeAll(Observe.Default, Dialogs.Default, PlaywrightSessions.Default).pipe(Layer.provide(store)))
  // Connect first (as a running gateway is): tabs opened from here on are observed from their first event.
  await tabAt(`${site}/blank`)
})

afterAll(async () => {
  await runtime?.dispose()
  if (browser !== undefined) await kill(browser)
  fs.rmSync(userDataDir, { recursive: true, force: true })
  fs.rmSync(traceDir, { recursive: true, force: true })
  await new Promise<void>((r) => (server !== undefined ? server.close(() => r()) : r()))
})

// ---------------------------------------------------------------------------------------------------------

describe("console and errors", () => {
  it("captures console messages at every level from the first load, and filters at or above a level", async () => {
    const tab = await tabAt(`${site}/console`)
    const logged = await eventually(() => observe((o) => o.console(tab.ref)), (xs) => xs.length >= 5)
    // The browser adds its own lines (a 404 for /favicon.ico); the page's are these five, in order.
    const all = logged.filter((e) => e.text.endsWith(" line") || e.text === "log line 42")
    expect(all.map((e) => [e.type, e.level, e.text])).toEqual([
      ["debug", "debug", "dbg line"],
      ["info", "info", "info line"],
      ["log", "info", "log line 42"],
      ["warning", "warning", "warn line"],
      ["error", "error", "error line"]
    ])
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]) // nothing before the page's own lines was missed
    expect(all[0]!.location?.url).toBe(`${site}/console`)
    expect(Number.isNaN(Date.parse(all[0]!.timestamp))).toBe(false)

    const warnings = await observe((o) => o.console(tab.ref, { level: "warn" }))
    expect(warnings.every((e) => e.level === "warning" || e.level === "error")).toBe(true)
    expect(warnings.map((e) => e.text)).toEqual(expect.arrayContaining(["warn line", "error line"]))
    const info = await observe((o) => o.console(tab.ref, { level: "log" }))
    expect(info.some((e) => e.level === "debug")).toBe(false)
    expect(info.length).toBe(logged.length - 1)
    const bad = failure(await exitOf(Effect.flatMap(Observe, (o) => o.console(tab.ref, { level: "loud" }))))
    expect(bad._tag).toBe("InvalidRequest")
    expect(bad.message).toContain("warning")
  })

  it("records uncaught errors with their stack; clear empties the list", async () => {
    const tab = await tabAt(`${site}/throw`)
    const errs = await eventually(() => observe((o) => o.errors(tab.ref)), (xs) => xs.length >= 1)
    expect(errs.length).toBe(1)
    expect(errs[0]!.message).toBe("boom from page")
    expect(errs[0]!.name).toBe("TypeError")
    expect(errs[0]!.stack).toContain("boom from page")
    const cleared = await observe((o) => o.errors(tab.ref, { clear: true }))
    expect(cleared.length).toBe(1)
    expect(await observe((o) => o.errors(tab.ref))).toEqual([])
  })

  it("a tab the gateway never attached to has empty lists", async () => {
    const nobody = { profile: PROFILE, targetId: "0123456789ABCDEF0123456789ABCDEF" }
    expect(await observe((o) => o.console(nobody))).toEqual([])
    expect(await observe((o) => o.errors(nobody))).toEqual([])
    expect(await observe((o) => o.requests(nobody))).toEqual([])
    expect(await dialogs((d) => d.dialogs(nobody))).toEqual([])
  })

  it("keeps the newest 500 console lines of 600", async () => {
    const tab = await tabAt(`${site}/blank`)
    await tab.page.evaluate(() => {
      for (let i = 0; i < 600; i++) console.log(`line ${i}`)
    })
    const lines = await eventually(
      () => observe((o) => o.console(tab.ref)),
      (xs) => xs.at(-1)?.text === "line 599"
    )
    expect(lines.length).toBe(500)
    expect(lines[0]!.text).toBe("line 100")
    expect(lines[0]!.seq).toBe(101)
    expect(lines.at(-1)!.seq).toBe(600)
  })

  it("a page already open when a profile connects: messages after the attach are captured", async () => {
    // A second profile name is a second library connection to the same browser: this tab exists before it.
    const targetId = await openTab(`${site}/console`)
    await new Promise((r) => setTimeout(r, 300))
    const ref = { profile: "late", targetId }
    const page = await run(Effect.flatMap(PlaywrightSessions, (s) => s.page("late", endpoint(), targetId)))
    await run(Effect.flatMap(Observe, (o) => o.ensureAttached(ref, page)))
    const before = await observe((o) => o.console(ref))
    await page.evaluate(() => console.log("after attach"))
    const after = await eventually(() => observe((o) => o.console(ref)), (xs) => xs.some((e) => e.text === "after attach"))
    expect(after.some((e) => e.text === "after attach")).toBe(true)
    console.log(
      `messages logged before the connection existed: ${before.length > 0 ? "replayed" : "not captured"} ` +
        `(${before.map((e) => e.text).join(", ") || "none"})`
    )
    await run(Effect.flatMap(PlaywrightSessions, (s) => s.disconnect("late")))
  })

  it("frees a tab's log when it closes", async () => {
    const tab = await tabAt(`${site}/console`)
    await eventually(() => observe((o) => o.console(tab.ref)), (xs) => xs.length >= 5)
    await tab.page.close()
    expect(await observe((o) => o.console(tab.ref))).toEqual([])
  })
})

describe("requests and response bodies", () => {
  it("records requests with status, type and timing; filters by URL or method", async () => {
    const tab = await tabAt(`${site}/blank`)
    // The document request of a tab opened with its URL (CDP Target.createTarget) starts before the library
    // attaches and is not reported; a navigation of an attached tab is.
    await tab.page.goto(`${site}/fetch`)
    expect(await tab.page.evaluate(() => (globalThis as unknown as { go: () => Promise<Array<number>> }).go())).toEqual([200, 404, 200])
    const reqs = await eventually(
      () => observe((o) => o.requests(tab.ref)),
      (xs) => xs.filter((r) => r.url.includes("/api/")).every((r) => r.state !== "pending") && xs.length >= 4
    )
    const doc = reqs.find((r) => r.url === `${site}/fetch`)!
    expect(doc).toMatchObject({ method: "GET", resourceType: "document", status: 200, state: "finished" })
    const missing = reqs.find((r) => r.url.endsWith("/api/missing"))!
    expect(missing).toMatchObject({ status: 404, resourceType: "fetch", state: "finished", failure: null })
    expect(missing.durationMs).toBeGreaterThanOrEqual(0)
    const api = await observe((o) => o.requests(tab.ref, { filter: "API/" }))
    expect(api.map((r) => new URL(r.url).pathname)).toEqual(["/api/ok", "/api/missing", "/api/big"])
    expect((await observe((o) => o.requests(tab.ref, { filter: "post" }))).length).toBe(0)
    const all = await observe((o) => o.requests(tab.ref, { clear: true }))
    expect(all.length).toBeGreaterThanOrEqual(4)
    expect(await observe((o) => o.requests(tab.ref))).toEqual([])
  })

  it("gives the body of a recent response, truncated with a marker; 404 bodies too; binary as base64", async () => {
    const tab = await tabAt(`${site}/fetch`)
    await tab.page.evaluate(() => (globalThis as unknown as { go: () => Promise<unknown> }).go())
    await tab.page.evaluate(() => fetch("/api/bin").then((r) => r.arrayBuffer()))

    const t0 = performance.now()
    const body = await observe((o) => o.responseBody(tab.ref, tab.page, { url: "**/api/big", maxChars: 1_000 }))
    const cachedMs = performance.now() - t0
    expect(body.status).toBe(200)
    expect(body.contentType).toBe("application/json")
    expect(body.encoding).toBe("utf8")
    expect(body.truncated).toBe(true)
    expect(body.bytes).toBe(Buffer.byteLength(big))
    expect(body.body.startsWith('{"items":[{"id":0')).toBe(true)
    expect(body.body.split("\n").at(-1)).toBe(`… [truncated: 1000 of ${big.length} characters]`)

    const whole = await observe((o) => o.responseBody(tab.ref, tab.page, { url: "api/big", maxChars: 1_000_000 }))
    expect(whole.truncated).toBe(false)
    expect(JSON.parse(whole.body).items.length).toBe(3_000)

    const missing = await observe((o) => o.responseBody(tab.ref, tab.page, { url: `${site}/api/missing`, maxChars: 100 }))
    expect(missing).toMatchObject({ status: 404, body: "no such thing", truncated: false })

    const bin = await observe((o) => o.responseBody(tab.ref, tab.page, { url: "**/api/bin", maxChars: 10_000 }))
    expect(bin.encoding).toBe("base64")
    expect(Buffer.from(bin.body, "base64").equals(png)).toBe(true)

    // A response that comes after the call: waited for.
    const t1 = performance.now()
    const [later] = await Promise.all([
      observe((o) => o.responseBody(tab.ref, tab.page, { url: "**/api/later*", maxChars: 100 })),
      tab.page.evaluate(() => (globalThis as unknown as { later: (ms: number) => void }).later(300))
    ])
    const waitedMs = performance.now() - t1
    expect(JSON.parse(later.body)).toEqual({ later: "300" })
    console.log(`responseBody: recent response ${cachedMs.toFixed(1)} ms (200 KB JSON); waited-for response ${waitedMs.toFixed(0)} ms (sent after 300 ms)`)
  })

  it("NotFound lists recent URLs when nothing matches within the wait", async () => {
    const tab = await tabAt(`${site}/blank`)
    await tab.page.goto(`${site}/fetch`)
    const t0 = performance.now()
    const err = failure(
      await exitOf(Effect.flatMap(Observe, (o) => o.responseBody(tab.ref, tab.page, { url: "**/nothing/*", maxChars: 10, timeoutMs: 300 })))
    )
    expect(performance.now() - t0).toBeLessThan(2_000)
    expect(err._tag).toBe("NotFound")
    expect(err.message).toContain(`${site}/fetch`)
    const bad = failure(await exitOf(Effect.flatMap(Observe, (o) => o.responseBody(tab.ref, tab.page, { url: "x", maxChars: 0 }))))
    expect(bad._tag).toBe("InvalidRequest")
  })
})

describe("traces", () => {
  it("start, stop to a zip file; a second start and a stop without start are Conflicts", async () => {
    const tab = await tabAt(`${site}/dialogs`)
    const noTrace = failure(await exitOf(Effect.flatMap(Observe, (o) => o.traceStop(PROFILE, tab.page, path.join(traceDir, "x.zip")))))
    expect(noTrace._tag).toBe("Conflict")
    expect(noTrace.message).toContain("trace start")

    const started = await observe((o) => o.traceStart(PROFILE, tab.page, { screenshots: true, snapshots: true }))
    expect(started.profile).toBe(PROFILE)
    const again = failure(await exitOf(Effect.flatMap(Observe, (o) => o.traceStart(PROFILE, tab.page))))
    expect(again._tag).toBe("Conflict")
    await tab.page.goto(`${site}/console`)
    await tab.page.evaluate(() => console.log("traced"))
    const dest = path.join(traceDir, "nested", "trace.zip")
    const t0 = performance.now()
    const file = await observe((o) => o.traceStop(PROFILE, tab.page, dest))
    const stopMs = performance.now() - t0
    expect(file.path).toBe(dest)
    expect(file.bytes).toBe(fs.statSync(dest).size)
    expect(fs.readFileSync(dest).subarray(0, 2).toString()).toBe("PK")
    console.log(`trace: ${file.bytes} bytes, stop took ${stopMs.toFixed(0)} ms`)
    // A new one can start after the stop.
    await observe((o) => o.traceStart(PROFILE, tab.page, { screenshots: false, snapshots: false }))
    await observe((o) => o.traceStop(PROFILE, tab.page, path.join(traceDir, "second.zip")))
  })
})

describe("dialogs", () => {
  const out = (tab: Tab) => tab.page.locator("#out").textContent()

  it("a prompt answered with text", async () => {
    const tab = await tabAt(`${site}/dialogs`)
    await dialogs((d) => d.arm(tab.ref, tab.page, { accept: true, promptText: "Ada" }))
    expect((await dialogs((d) => d.armed(tab.ref)))?.accept).toBe(true)
    await tab.page.locator("#p").click({ timeout: 5_000 })
    expect(await out(tab)).toBe("prompt:Ada")
    const log = await dialogs((d) => d.dialogs(tab.ref))
    expect(log).toMatchObject([
      { type: "prompt", message: "Your name?", defaultValue: "nobody", answer: "accepted", promptText: "Ada", armed: true, error: null }
    ])
    expect(await dialogs((d) => d.armed(tab.ref))).toBeUndefined()
  })

  it("a confirm dismissed as armed", async () => {
    const tab = await tabAt(`${site}/dialogs`)
    await dialogs((d) => d.arm(tab.ref, tab.page, { accept: false }))
    await tab.page.locator("#c").click({ timeout: 5_000 })
    expect(await out(tab)).toBe("confirm:false")
  })

  it("unarmed dialogs do not wedge the tab: answered by policy, recorded, and the next call works", async () => {
    const tab = await tabAt(`${site}/dialogs`)
    const t0 = performance.now()
    await tab.page.locator("#a").click({ timeout: 5_000 })
    const clickMs = performance.now() - t0
    expect(await out(tab)).toBe("after alert")
    expect(await tab.page.evaluate(() => 1 + 1)).toBe(2)
    await tab.page.locator("#c").click({ timeout: 5_000 })
    expect(await out(tab)).toBe("confirm:false")
    await tab.page.locator("#p").click({ timeout: 5_000 })
    expect(await out(tab)).toBe("prompt:null")
    const log = await dialogs((d) => d.dialogs(tab.ref))
    expect(log.map((e) => [e.type, e.answer, e.armed])).toEqual([
      ["alert", "accepted", false],
      ["confirm", "dismissed", false],
      ["prompt", "dismissed", false]
    ])
    expect(log[0]!.message).toBe("Hello there")
    expect(log[0]!.url).toBe(`${site}/dialogs`)
    console.log(`click that opened an unarmed alert: ${clickMs.toFixed(0)} ms`)
  })

  it("an alert opened by evaluate does not hang the evaluate", async () => {
    const tab = await tabAt(`${site}/dialogs`)
    expect(await tab.page.evaluate(() => {
      ;(globalThis as unknown as { alert: (m: string) => void }).alert("from evaluate")
      return "done"
    })).toBe("done")
    const log = await dialogs((d) => d.dialogs(tab.ref))
    expect(log.at(-1)?.message).toBe("from evaluate")
  })
})

describe("cost", () => {
  it("listener overhead on a page making 200 requests and 2,000 console calls", async () => {
    // The same work with observers (this runtime) and without (a bare PlaywrightSessions, its own connection).
    const bare = ManagedRuntime.make(PlaywrightSessions.Default)
    try {
      const work = (page: Page) =>
        page.evaluate(async () => {
          const t0 = performance.now()
          for (let i = 0; i < 200; i++) await fetch(`/api/ok?i=${i}`).then((r) => r.text())
          for (let i = 0; i < 2_000; i++) console.log(`c ${i}`)
          return performance.now() - t0
        })
      const targetId = await openTab(`${site}/blank`)
      const barePage = await bare.runPromise(Effect.flatMap(PlaywrightSessions, (s) => s.page("bare", endpoint(), targetId)))
      const observed = await tabAt(`${site}/blank`)
      const times = { bare: [] as Array<number>, observed: [] as Array<number> }
      for (let round = 0; round < 3; round++) {
        let t = performance.now()
        await work(barePage)
        await barePage.evaluate(() => 0)
        times.bare.push(performance.now() - t)
        t = performance.now()
        await work(observed.page)
        await observed.page.evaluate(() => 0)
        times.observed.push(performance.now() - t)
      }
      const reqs = await eventually(() => observe((o) => o.requests(observed.ref, { filter: "/api/ok" })), (xs) => xs.length >= 500)
      expect(reqs.length).toBe(500)
      const med = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[1]!
      console.log(
        `200 fetches + 2,000 console.log: bare ${med(times.bare).toFixed(0)} ms, observed ${med(times.observed).toFixed(0)} ms ` +
          `(ratio ${(med(times.observed) / med(times.bare)).toFixed(2)})`
      )
    } finally {
      await bare.dispose()
    }
  })
})
