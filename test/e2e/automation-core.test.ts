import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
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
import { AUTOMATION_UNAVAILABLE_MESSAGE, makePlaywrightSessions, PlaywrightSessions } from "../../src/browser/pages/Playwright.js"
import { FRESH_SNAPSHOT_HINT, Refs } from "../../src/browser/act/Refs.js"
import { Snapshots } from "../../src/browser/snapshot/Snapshots.js"

// The automation core against a real headless Chromium and pages served on loopback: one library
// connection per profile, AI and role snapshots with refs, and refs that fail fast when stale.


// ---------------------------------------------------------------------------------------------------------
// Pages

const formPage = `<!doctype html><html><head><title>Form</title>
<style>#wrap{position:relative;display:inline-block}#cover{position:absolute;inset:0;background:rgba(0,0,0,.4)}</style>
</head><body>
<h1>Form page</h1>
<p id="out">nothing yet</p>
<form onsubmit="return false">
  <label for="name">Your name</label> <input id="name">
  <label for="email">Email</label> <input id="email" type="email">
  <label for="colour">Colour</label> <select id="colour"><option>Red</option><option>Green</option></select>
  <label><input type="checkbox" id="sub"> Subscribe</label>
  <button type="button" onclick="out.textContent='first save'">Save</button>
  <button type="button" onclick="out.textContent='second save'">Save</button>
  <span id="wrap"><button type="button" onclick="out.textContent='covered'">Covered</button><span id="cover"></span></span>
  <button type="button" style="display:none" onclick="out.textContent='hidden'">Hidden</button>
  <button type="button" id="rerender" onclick="out.textContent='old'">Ephemeral</button>
</form>
<a href="/other">Go other</a>
<button type="button" onclick="history.pushState({}, '', '/form/pushed'); out.textContent='pushed'">Push state</button>
<iframe title="inner" src="/frame" style="width:300px;height:120px"></iframe>
</body></html>`

const framePage = `<!doctype html><title>frame</title><h2>Frame</h2>
<button onclick="parent.document.getElementById('out').textContent='frame button'">Frame button</button>`

/** About four ARIA nodes per item: listitem, link, button, text. */
const nodesPage = (items: number) =>
  `<!doctype html><title>Nodes ${items}</title><h1>Many nodes</h1><ul>${
    Array.from({ length: items }, (_, i) => `<li><a href="#i${i}">Item ${i}</a> <button>Act ${i}</button> note ${i}</li>`).join("")
  }</ul>`

const handler: http.RequestListener = (req, res) => {
  const u = new URL(req.url ?? "/", "http://x")
  res.setHeader("content-type", "text/html; charset=utf-8")
  if (u.pathname.startsWith("/form")) return res.end(formPage)
  if (u.pathname === "/frame") return res.end(framePage)
  if (u.pathname === "/other") return res.end("<!doctype html><title>Other</title><button>Other button</button>")
  if (u.pathname === "/nodes") return res.end(nodesPage(Number(u.searchParams.get("items") ?? "100")))
  res.statusCode = 404
  res.end("<title>404</title>")
}

// ---------------------------------------------------------------------------------------------------------
// Chromium

type Launched = TestChromium

const freePort = freeTestPort
const kill = (launched: Launched) => launched.kill()
const launch = (port: number, userDataDir: string): Promise<Launched> => launchTestChromium({ port, userDataDir })

// ---------------------------------------------------------------------------------------------------------
// Harness

let server: http.Server | undefined
let site = ""
let browser: Launched | undefined
let userDataDir = ""
let runtime: ManagedRuntime.ManagedRuntime<Snapshots | Refs | PlaywrightSessions, never> | undefined

const endpoint = (): CdpEndpoint => ({ url: `http://127.0.0.1:${browser!.port}`, timeoutMs: 2_000, handshakeTimeoutMs: 3_000 })
const run = <A, E>(effect: Effect.Effect<A, E, Snapshots | Refs | PlaywrightSessions>) => runtime!.runPromise(effect)
const exitOf = <A, E>(effect: Effect.Effect<A, E, Snapshots | Refs | PlaywrightSessions>) => runtime!.runPromiseExit(effect)

const failure = (exit: Exit.Exit<unknown, unknown>): { _tag: string; message: string } => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const err = Cause.failureOption(exit.cause)
  if (err._tag === "None") throw new Error(`expected a failure, got ${Cause.pretty(exit.cause)}`)
  return err.value as { _tag: string; message: string }
}

/** Opens a tab over CDP (as the gateway's Tabs service does) and returns its targetId. */
const openTab = (url: string) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(makeCdp({ reuseConnections: false }), (c) => c.openTab(endpoint(), url)))).then(
    (t) => t.targetId
  )

const PROFILE = "svc"

interface Tab {
  readonly targetId: string
  readonly page: Page
  readonly ref: { readonly profile: string; readonly targetId: string }
}

const tabAt = async (url: string): Promise<Tab> => {
  const targetId = await openTab(url)
  const page = await run(Effect.flatMap(PlaywrightSessions, (s) => s.page(PROFILE, endpoint(), targetId)))
  // The document's own word, not the library's: a tab opened over CDP may load before the library attaches to
  // it, and then the library can miss its load event (once, waiting 30 s: "networkidle" fired, "load" never).
  await page.waitForFunction("document.readyState === \"complete\"")
  return { targetId, page, ref: { profile: PROFILE, targetId } }
}

const snapshot = (tab: Tab, options: Parameters<Snapshots["snapshot"]>[2] = {}) =>
  run(Effect.flatMap(Snapshots, (s) => s.snapshot(tab.ref, tab.page, options)))

const resolve = (tab: Tab, ref: string) => run(Effect.flatMap(Refs, (r) => r.resolve(tab.ref, tab.page, ref)))
const resolveExit = (tab: Tab, ref: string) => exitOf(Effect.flatMap(Refs, (r) => r.resolve(tab.ref, tab.page, ref)))

/** The ref a snapshot gave the element with this role and name (the k-th of them). */
const refOf = (refs: Record<string, { role: string; name: string }>, role: string, name: string, k = 0) => {
  const found = Object.entries(refs).filter(([, r]) => r.role === role && r.name === name)
  if (found[k] === undefined) throw new Error(`no ${role} "${name}" #${k} in ${JSON.stringify(refs)}`)
  return found[k]![0]
}

const outText = (tab: Tab) => tab.page.locator("#out").textContent()

const expectStale = async (tab: Tab, ref: string) => {
  const t0 = performance.now()
  const exit = await resolveExit(tab, ref)
  const ms = performance.now() - t0
  const err = failure(exit)
  expect(err._tag).toBe("Conflict")
  expect(err.message).toContain(FRESH_SNAPSHOT_HINT)
  expect(ms).toBeLessThan(1_000)
  return { message: err.message, ms }
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

beforeAll(async () => {
  server = http.createServer(handler)
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r))
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-automation-e2e-"))
  browser = await launch(await freePort(), userDataDir)
  runtime = ManagedRuntime.make(Layer.mergeAll(Snapshots.Default, Refs.Default, PlaywrightSessions.Default))
})

afterAll(async () => {
  await runtime?.dispose()
  if (browser !== undefined) await kill(browser)
  fs.rmSync(userDataDir, { recursive: true, force: true })
  await new Promise<void>((r) => (server !== undefined ? server.close(() => r()) : r()))
})

// ---------------------------------------------------------------------------------------------------------

describe("automation core against real Chromium", () => {
  it("finds the playwright page of a targetId over one reused connection", async () => {
    const tab = await tabAt(`${site}/form`)
    const timings = await run(Effect.flatMap(PlaywrightSessions, (s) => s.lastTimings(PROFILE)))
    expect(timings.connectMs).toBeGreaterThan(0)
    const again = await run(Effect.flatMap(PlaywrightSessions, (s) => s.page(PROFILE, endpoint(), tab.targetId)))
    expect(again).toBe(tab.page)
    const cached = await run(Effect.flatMap(PlaywrightSessions, (s) => s.lastTimings(PROFILE)))
    expect(cached.connectedAt).toBe(timings.connectedAt) // the same connection
    console.log(`connectOverCDP ${timings.connectMs!.toFixed(1)} ms; page lookup: first ${timings.lookupMs!.toFixed(1)} ms, cached ${cached.lookupMs!.toFixed(2)} ms`)
    const unknown = failure(await exitOf(Effect.flatMap(PlaywrightSessions, (s) => s.page(PROFILE, endpoint(), "NOPE"))))
    expect(unknown._tag).toBe("NotFound")
  })

  it("AI snapshot: numeric refs that resolve to the right elements", async () => {
    const tab = await tabAt(`${site}/form`)
    const snap = await snapshot(tab)
    expect(snap.format).toBe("ai")
    expect(snap.title).toBe("Form")
    expect(snap.url).toBe(`${site}/form`)
    expect(snap.snapshot).toMatch(/- button "Save" \[ref=\d+\]/)
    expect(snap.snapshot).not.toMatch(/\[ref=e\d+\]/)
    expect(snap.snapshot).not.toContain("Hidden") // display:none gets no line, no ref
    expect(snap.stats.refs).toBe(Object.keys(snap.refs).length)
    expect(snap.stats.interactive).toBeGreaterThanOrEqual(8)
    expect(snap.truncated).toBe(false)

    const second = await resolve(tab, refOf(snap.refs, "button", "Save", 1))
    expect(second.description).toBe('button "Save"')
    await second.locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("second save")
    await (await resolve(tab, refOf(snap.refs, "button", "Save", 0))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("first save")

    await (await resolve(tab, refOf(snap.refs, "textbox", "Your name"))).locator.fill("Ada")
    expect(await tab.page.locator("#name").inputValue()).toBe("Ada")
    await (await resolve(tab, refOf(snap.refs, "checkbox", "Subscribe"))).locator.check()
    expect(await tab.page.locator("#sub").isChecked()).toBe(true)
    await (await resolve(tab, refOf(snap.refs, "combobox", "Colour"))).locator.selectOption("Green")
    expect(await tab.page.locator("#colour").inputValue()).toBe("Green")
    // The covered button has a ref and resolves (acting on it is the actions layer's business).
    expect((await resolve(tab, refOf(snap.refs, "button", "Covered"))).description).toContain("Covered")
  })

  it("iframe refs are distinguishable (f<k>e<n>) and usable", async () => {
    const tab = await tabAt(`${site}/form`)
    const snap = await snapshot(tab)
    const ref = refOf(snap.refs, "button", "Frame button")
    expect(ref).toMatch(/^f\d+e\d+$/)
    expect(snap.snapshot).toContain(`- button "Frame button" [ref=${ref}]`)
    const resolved = await resolve(tab, ref)
    await resolved.locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("frame button")
  })

  it("role snapshot: e-refs with nth pick the right one of two same-named buttons", async () => {
    const tab = await tabAt(`${site}/form`)
    const snap = await snapshot(tab, { interactive: true })
    expect(snap.format).toBe("role")
    const lines = snap.snapshot.split("\n")
    expect(lines.every((l) => l.startsWith("- "))).toBe(true) // flat
    const saves = lines.filter((l) => l.startsWith('- button "Save"'))
    expect(saves).toHaveLength(2)
    expect(saves[0]).toMatch(/\[ref=e\d+\] \[nth=0\]$/)
    expect(saves[1]).toMatch(/\[ref=e\d+\] \[nth=1\]$/)
    const second = /\[ref=(e\d+)\]/.exec(saves[1]!)![1]!
    expect(snap.refs[second]).toEqual({ role: "button", name: "Save", nth: 1 })
    await (await resolve(tab, second)).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("second save")
    const first = /\[ref=(e\d+)\]/.exec(saves[0]!)![1]!
    await (await resolve(tab, first)).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("first save")
    // Not interactive, not in the list.
    expect(snap.snapshot).not.toContain("heading")
    expect(snap.snapshot).not.toContain("Hidden")
  })

  it("role snapshot of an iframe: refs scoped to that frame", async () => {
    const tab = await tabAt(`${site}/form`)
    const snap = await snapshot(tab, { frame: "iframe[title=inner]" })
    expect(snap.snapshot).toContain('- heading "Frame" [level=2]')
    const ref = refOf(snap.refs, "button", "Frame button")
    await (await resolve(tab, ref)).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("frame button")
  })

  it("role snapshot of a selector, compact and depth", async () => {
    const tab = await tabAt(`${site}/form`)
    const scoped = await snapshot(tab, { selector: "form" })
    expect(scoped.snapshot).not.toContain("Form page")
    expect(scoped.snapshot).toContain('textbox "Email"')
    await (await resolve(tab, refOf(scoped.refs, "button", "Save", 1))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("second save")
    const compact = await snapshot(tab, { compact: true })
    expect(compact.snapshot).not.toContain("- text:")
    expect(compact.snapshot).not.toContain("/url")
    const shallow = await snapshot(tab, { depth: 1 })
    expect(shallow.snapshot).not.toContain("option")
    const missing = failure(await exitOf(Effect.flatMap(Snapshots, (s) => s.snapshot(tab.ref, tab.page, { selector: "#nope", timeoutMs: 500 }))))
    expect(missing._tag).toBe("NotFound")
  })

  it("a ref from a superseded snapshot fails fast, never hitting another element", async () => {
    const tab = await tabAt(`${site}/form`)
    const before = await snapshot(tab)
    const ephemeral = refOf(before.refs, "button", "Ephemeral")
    // The element is re-rendered: same role and name, a new element.
    await tab.page.evaluate(`(() => {
      const old = document.getElementById("rerender")
      const fresh = old.cloneNode(true)
      fresh.onclick = () => { document.getElementById("out").textContent = "new" }
      old.replaceWith(fresh)
    })()`)
    const after = await snapshot(tab)
    const renewed = refOf(after.refs, "button", "Ephemeral")
    expect(renewed).not.toBe(ephemeral)
    const { message } = await expectStale(tab, ephemeral)
    expect(message).toContain("not in the latest snapshot")
    // Refs of elements that are still there keep working across snapshots.
    await (await resolve(tab, refOf(before.refs, "button", "Save", 1))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("second save")
    await (await resolve(tab, renewed)).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("new")
    // A role snapshot replaces the library's snapshot of the frame; the AI refs of elements unchanged since
    // still act (svc's own checks tell them), and one whose element went since fails fast, saying why.
    await snapshot(tab, { interactive: true })
    await tab.page.evaluate(`document.getElementById("out").textContent = ""`)
    await (await resolve(tab, renewed)).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("new")
    await tab.page.evaluate(`document.getElementById("rerender").remove()`)
    expect((await expectStale(tab, renewed)).message).toContain("role snapshot")
  })

  it("a ref after a cross-document navigation fails fast; pushState does not make refs stale", async () => {
    const tab = await tabAt(`${site}/form`)
    const snap = await snapshot(tab)
    const push = refOf(snap.refs, "button", "Push state")
    await (await resolve(tab, push)).locator.click({ timeout: 5_000 })
    expect(tab.page.url()).toBe(`${site}/form/pushed`)
    // Same document: the refs still stand.
    await (await resolve(tab, refOf(snap.refs, "button", "Save", 1))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("second save")
    const role = await snapshot(tab, { interactive: true })
    const roleRef = refOf(role.refs, "button", "Save", 1)

    const navsBefore = await run(Effect.flatMap(PlaywrightSessions, (s) => s.navigations(tab.page)))
    await tab.page.goto(`${site}/form`) // the same page again: same roles and names, another document
    expect(await run(Effect.flatMap(PlaywrightSessions, (s) => s.navigations(tab.page)))).toBe(navsBefore + 1)
    expect((await expectStale(tab, roleRef)).message).toContain("navigated")
    const fresh = await snapshot(tab)
    // New numbers for the new document: an old number can never land on a new element.
    const oldNumbers = new Set(Object.keys(snap.refs).filter((k) => /^\d+$/.test(k)))
    const newNumbers = Object.keys(fresh.refs).filter((k) => /^\d+$/.test(k))
    expect(newNumbers.some((k) => oldNumbers.has(k))).toBe(false)
    expect((await expectStale(tab, refOf(snap.refs, "button", "Save", 1))).message).toContain("not in the latest snapshot")
    await (await resolve(tab, refOf(fresh.refs, "button", "Save", 0))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("first save")

    // Navigation with no snapshot since: refused as navigated.
    await tab.page.goto(`${site}/other`)
    expect((await expectStale(tab, refOf(fresh.refs, "button", "Save", 0))).message).toContain("navigated")
  })

  it("concurrent snapshots of one tab agree on the numbers, so neither invalidates the other's refs", async () => {
    const tab = await tabAt(`${site}/form`)
    const [a, b] = await Promise.all([snapshot(tab), snapshot(tab)])
    expect(Object.keys(a.refs)).toEqual(Object.keys(b.refs))
    await (await resolve(tab, refOf(a.refs, "button", "Save", 1))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("second save")
    const [role, ai] = await Promise.all([snapshot(tab, { interactive: true }), snapshot(tab)])
    // Whichever finished last owns playwright's table; role refs never depend on it.
    await (await resolve(tab, refOf(role.refs, "button", "Save", 0))).locator.click({ timeout: 5_000 })
    expect(await outText(tab)).toBe("first save")
    const exit = await resolveExit(tab, refOf(ai.refs, "button", "Save", 1))
    if (Exit.isFailure(exit)) expect(failure(exit).message).toContain(FRESH_SNAPSHOT_HINT)
  })

  it("refuses a CSS selector with a pointer to snapshot refs", async () => {
    const tab = await tabAt(`${site}/form`)
    await snapshot(tab)
    for (const selector of ["#name", "button", "div > a", "text=Save"]) {
      const err = failure(await resolveExit(tab, selector))
      expect(err._tag).toBe("InvalidRequest")
      expect(err.message).toContain("svc browser snapshot")
    }
  })

  it("truncation: the text says so on its last line, and the flag is set", async () => {
    const tab = await tabAt(`${site}/nodes?items=200`)
    const snap = await snapshot(tab, { limit: 2_000 })
    expect(snap.truncated).toBe(true)
    expect(snap.snapshot.length).toBeLessThanOrEqual(2_000)
    expect(snap.snapshot.split("\n").pop()).toMatch(/truncated at the 2000-character limit/)
    // Only refs the agent saw are usable.
    const shown = [...snap.snapshot.matchAll(/\[ref=(\d+)\]/g)].map((m) => m[1]!)
    expect(Object.keys(snap.refs).sort()).toEqual(shown.sort())
  })

  it("labels: a PNG of the viewport with the refs drawn, the page left as it was", async () => {
    const tab = await tabAt(`${site}/form`)
    const snap = await snapshot(tab, { labels: true })
    const png = snap.labelsPng!
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(snap.snapshot).not.toContain("box=")
    expect(await tab.page.locator("[data-svc-labels]").count()).toBe(0)
    const role = await snapshot(tab, { interactive: true, labels: true, frame: "iframe" })
    expect(role.labelsPng!.byteLength).toBeGreaterThan(1000)
  })

  it("efficient snapshot of a page with thousands of nodes", async () => {
    const large = await tabAt(`${site}/nodes?items=1000`) // ~4,000 nodes

    const full = await snapshot(large)
    const efficient = await snapshot(large, { efficient: true })
    expect(efficient.format).toBe("role")
    expect(efficient.snapshot.length).toBeLessThanOrEqual(10_000)
    expect(efficient.snapshot).toMatch(/- link "Item 0" \[ref=e\d+\]/)
    expect(efficient.snapshot).toMatch(/- button "Act 0" \[ref=e\d+\]/)
    expect(efficient.stats.interactive).toBeGreaterThan(100)
    expect(efficient.stats.interactive).toBe(efficient.stats.refs)
    await (await resolve(large, refOf(efficient.refs, "button", "Act 3"))).locator.click({ timeout: 5_000 })
    // The full AI snapshot of the same page stops at the default 80,000-character cap and says so.
    expect(full.truncated).toBe(true)
    expect(full.snapshot.length).toBeLessThanOrEqual(80_000)
    expect(efficient.snapshot.length).toBeLessThan(full.snapshot.length / 5)
  })

  // Timing ratios belong to `npm run bench` (test/bench/automation.mjs), where a baseline runs in the same
  // process; in the test suite other suites share the CPU. SVC_SNAPSHOT_BENCH=1 prints this comparison.
  it.skipIf(process.env.SVC_SNAPSHOT_BENCH !== "1")("the cost of an AI snapshot, direct vs Snapshots", async () => {
    const small = await tabAt(`${site}/nodes?items=100`) // ~400 nodes
    const large = await tabAt(`${site}/nodes?items=1000`) // ~4,000 nodes
    const full = await snapshot(large)
    const efficient = await snapshot(large, { efficient: true })
    const measure = async (tab: Tab, rounds: number) => {
      const direct: Array<number> = []
      const ours: Array<number> = []
      for (let i = 0; i < rounds; i++) {
        // Alternate which goes first, so neither always runs on a freshly collected heap.
        for (const which of i % 2 === 0 ? ["direct", "ours"] : ["ours", "direct"]) {
          const t0 = performance.now()
          if (which === "direct") await tab.page.ariaSnapshot({ mode: "ai" })
          else await snapshot(tab)
          ;(which === "direct" ? direct : ours).push(performance.now() - t0)
        }
      }
      return { direct: median(direct), ours: median(ours) }
    }
    await measure(small, 3) // warm up
    const s = await measure(small, 21)
    const l = await measure(large, 11)
    console.log(
      `AI snapshot, direct vs Snapshots (median): ~400 nodes ${s.direct.toFixed(1)} vs ${s.ours.toFixed(1)} ms ` +
        `(${(s.ours / s.direct).toFixed(3)}x); ~4,000 nodes ${l.direct.toFixed(1)} vs ${l.ours.toFixed(1)} ms ` +
        `(${(l.ours / l.direct).toFixed(3)}x); full AI ${full.snapshot.length} chars (truncated ${full.truncated}), ` +
        `efficient ${efficient.snapshot.length} chars, ${efficient.stats.refs} refs`
    )
    // The target is 1.15x through the whole gateway (test/bench); here loosely, as other suites share the CPU.
    expect(l.ours / l.direct).toBeLessThan(1.5)
  })

  it("disconnect leaves the browser and its tabs alone; the next call connects again", async () => {
    const tab = await tabAt(`${site}/form`)
    expect(await run(Effect.flatMap(PlaywrightSessions, (s) => s.disconnect(PROFILE)))).toBe(true)
    const list = (await (await fetch(`http://127.0.0.1:${browser!.port}/json/list`)).json()) as Array<{ id: string }>
    expect(list.map((t) => t.id)).toContain(tab.targetId)
    const page = await run(Effect.flatMap(PlaywrightSessions, (s) => s.page(PROFILE, endpoint(), tab.targetId)))
    expect(page).not.toBe(tab.page)
    const t = await run(Effect.flatMap(PlaywrightSessions, (s) => s.lastTimings(PROFILE)))
    console.log(`reconnect: connectOverCDP ${t.connectMs!.toFixed(1)} ms, first page lookup ${t.lookupMs!.toFixed(1)} ms`)
    expect(page.url()).toBe(`${site}/form`)
  })

  it("reconnects when the browser restarted", async () => {
    await tabAt(`${site}/form`)
    const before = await run(Effect.flatMap(PlaywrightSessions, (s) => s.lastTimings(PROFILE)))
    await kill(browser!)
    browser = await launch(browser!.port, userDataDir)
    const tab = await tabAt(`${site}/other`)
    const after = await run(Effect.flatMap(PlaywrightSessions, (s) => s.lastTimings(PROFILE)))
    expect(after.connectedAt).not.toBe(before.connectedAt)
    expect(tab.page.url()).toBe(`${site}/other`)
  })
})

describe("without the automation library", () => {
  it("every page lookup answers 501 with the shared message", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        Effect.flatMap(
          makePlaywrightSessions({
            load: () => {
              throw new Error("Cannot find module 'playwright-core'")
            }
          }),
          (s) => s.page(PROFILE, { url: "http://127.0.0.1:1", timeoutMs: 100, handshakeTimeoutMs: 100 }, "T")
        )
      )
    )
    const err = failure(exit)
    expect(err._tag).toBe("NotImplemented")
    expect(err.message).toBe(AUTOMATION_UNAVAILABLE_MESSAGE)
    expect(err.message).toMatch(/unavailable in this gateway build/)
    expect(err.message).toMatch(/not the core-only package/)
    expect(err.message).toMatch(/restart the gateway/)
  })
})
