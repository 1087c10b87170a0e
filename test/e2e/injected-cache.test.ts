import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  cacheInjectedScript,
  INJECTED_FUNCTION_KEY,
  INJECTED_MADE_KEY,
  type InjectedCacheStats
} from "../../src/browser/pages/injectedCache.js"
import { openPlainTransport } from "../../src/browser/pages/plainTransport.js"
import { launchTestChromium, type TestChromium } from "../support/chromium.js"

// The library's injected script, compiled once per renderer (injectedCache.ts), against a real Chromium: the
// library connected over the wrapped connection reads and acts on document after document as the library
// alone does, its later documents' scripts made from the function the browser defined in each (sent short).

const PAGE = `<!doctype html><title>cache</title>
<h1>Orders</h1>
<button onclick="document.getElementById('status').textContent = 'clicked ' + (++window.n || (window.n = 1))">Count</button>
<p id="status">idle</p>
<iframe src="/frame" title="side"></iframe>`
const FRAME = `<!doctype html><label>Note <input value="kept"></label><a href="#x">Inner link</a>`

let server: http.Server
let base = ""
let browserProcess: TestChromium
let wrapped: Browser
let plain: Browser
let stats: () => InjectedCacheStats

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader("content-type", "text/html")
    res.end(req.url?.startsWith("/frame") ? FRAME : PAGE)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browserProcess = await launchTestChromium()
  const transport = await openPlainTransport(browserProcess.cdpUrl, { timeoutMs: 10_000, handshakeTimeoutMs: 10_000 })
  const cached = cacheInjectedScript(transport!)
  stats = cached.stats
  // As svc connects the library (connectLibrary.ts): it takes a transport at run time.
  wrapped = await (chromium.connectOverCDP as unknown as (t: unknown, o: object) => Promise<Browser>)(cached, { timeout: 20_000 })
  plain = await chromium.connectOverCDP(browserProcess.cdpUrl, { timeout: 20_000 })
}, 60_000)

afterAll(async () => {
  await wrapped?.close().catch(() => undefined)
  await plain?.close().catch(() => undefined)
  await browserProcess?.kill()
  await new Promise((r) => server?.close(r))
})

/** The text with each frame's ref prefix left out (frames are numbered per connection, in the order the library met them). */
const unnumbered = (text: string) => text.replace(/\[ref=f\d+e/g, "[ref=e")

const newPage = async (browser: Browser): Promise<Page> => {
  const context = browser.contexts()[0] ?? await browser.newContext()
  return await context.newPage()
}

/**
 * What the main frame's utility world of `page` says of svc's function and of the library's script made from
 * it: read over a CDP session of the test's own (the library's worlds are seen by every session of the page).
 */
const utilityMarks = async (page: Page): Promise<unknown> => {
  const session = await page.context().newCDPSession(page)
  try {
    const contexts: Array<{ readonly id: number; readonly name: string; readonly auxData?: { readonly frameId?: string } }> = []
    session.on("Runtime.executionContextCreated", ({ context }) => void contexts.push(context))
    await session.send("Runtime.enable")
    const { frameTree } = await session.send("Page.getFrameTree")
    // The world of this page's library connection: named after its page (each connection has worlds of its own).
    const name = `__playwright_utility_world_${(page as unknown as { readonly _guid: string })._guid}`
    const world = contexts.find((c) => c.name === name && c.auxData?.frameId === frameTree.frame.id)
    const r = await session.send("Runtime.evaluate", {
      contextId: world!.id,
      returnByValue: true,
      expression: `[typeof globalThis.${INJECTED_FUNCTION_KEY}, globalThis.${INJECTED_MADE_KEY} ?? null, Object.keys(globalThis).filter((k) => k.startsWith("__svc"))]`
    })
    return r.result.value
  } finally {
    await session.detach().catch(() => undefined)
  }
}

describe("the library over the wrapped connection", () => {
  it("reads and acts on each new document (its iframe too) as the library alone does, its script made short", async () => {
    const page = await newPage(wrapped)
    const reference = await newPage(plain)
    try {
      await reference.goto(`${base}/`)
      const expected = await reference.ariaSnapshot({ mode: "ai" })
      expect(expected).toContain("Inner link")

      for (let visit = 1; visit <= 3; visit++) {
        await page.goto(`${base}/?visit=${visit}`)
        // From the second document on the function is there from the start, and no script made from it yet
        // (svc's ref checks then skip looking through the page for refs given before them).
        if (visit > 1) expect(await utilityMarks(page)).toEqual(["function", null, []])
        const before = stats().sentShort
        const text = await page.ariaSnapshot({ mode: "ai" })
        expect(unnumbered(text)).toBe(unnumbered(expected))
        // The main frame's and the iframe's scripts (injected and utility) were made from the functions.
        expect(stats().sentShort).toEqual({ InjectedScript: before.InjectedScript + 2, UtilityScript: before.UtilityScript + 2 })
        expect(await utilityMarks(page)).toEqual(["function", true, []])
        // Refs from that read act: the library's ref map lives in the instance the function made.
        const ref = /button "Count" \[ref=((?:f\d+)?e\d+)\]/.exec(text)![1]
        await page.locator(`aria-ref=${ref}`).click({ timeout: 5_000 })
        await expect.poll(() => page.locator("#status").textContent()).toBe("clicked 1")
        const inner = /link "Inner link" \[ref=(f\d+e\d+)\]/.exec(text)![1]
        expect(await page.locator(`aria-ref=${inner}`).textContent({ timeout: 5_000 })).toBe("Inner link")
      }
      expect(stats()).toMatchObject({ learned: ["InjectedScript", "UtilityScript"], sentWhole: { InjectedScript: 0, UtilityScript: 0 } })
      expect(stats().armedSessions).toBeGreaterThanOrEqual(1)
    } finally {
      await page.close().catch(() => undefined)
      await reference.close().catch(() => undefined)
    }
  }, 60_000)

  it("a new tab's first read defines the script there at once: its frames' scripts go short from the first", async () => {
    const page = await newPage(wrapped)
    try {
      await page.goto(`${base}/?fresh`)
      const before = stats().sentShort
      expect(await page.ariaSnapshot({ mode: "ai" })).toContain('button "Count"')
      expect(stats().sentShort).toEqual({ InjectedScript: before.InjectedScript + 2, UtilityScript: before.UtilityScript + 2 })
      expect(stats().sentWhole).toEqual({ InjectedScript: 0, UtilityScript: 0 })
    } finally {
      await page.close().catch(() => undefined)
    }
  }, 30_000)
})
