import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as playwright from "playwright-core"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectLibrary, rawSendsOf } from "../../src/browser/pages/connectLibrary.js"
import { openPageSession } from "../../src/browser/pages/pageSession.js"
import { launchTestChromium, type TestChromium } from "../support/chromium.js"

// svc's own commands beside the library (rawSends.ts), against a real Chromium and the library connected the
// way the gateway connects it: svc's session on a page learns its id on the wire, its commands are answered
// there in the page's worlds, the library goes on working on the same session's page, and a closed page
// fails them instead of leaving them unanswered.

const PAGE = `<!doctype html><title>raw</title><h1>Raw sends</h1><p id="out">idle</p>
<button onclick="document.getElementById('out').textContent = 'clicked'">Press</button>`

let server: http.Server
let base = ""
let browserProcess: TestChromium
let browser: Browser

beforeAll(async () => {
  server = http.createServer((_req, res) => res.setHeader("content-type", "text/html").end(PAGE))
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browserProcess = await launchTestChromium()
  // As the gateway connects it: over svc's own websocket to a browser on this machine.
  browser = await connectLibrary(playwright, { url: browserProcess.cdpUrl, timeoutMs: 10_000, handshakeTimeoutMs: 10_000 }, undefined, 20_000)
}, 60_000)

afterAll(async () => {
  await browser?.close().catch(() => undefined)
  await browserProcess?.kill()
  await new Promise((r) => server?.close(r))
})

describe("svc's commands beside the library", () => {
  it("go on the wire on svc's own session of the page, answered there, while the library works on the page", async () => {
    const raw = rawSendsOf(browser)
    expect(raw).toBeDefined()
    const context = browser.contexts()[0] ?? await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${base}/`)
    const info = await openPageSession(page, raw)
    expect(info.direct).toBeDefined()

    const title = await info.direct!("Target.getTargetInfo") as { targetInfo: { title: string; targetId: string } }
    expect(title.targetInfo).toMatchObject({ title: "raw", targetId: info.targetId })
    const read = await info.direct!("Runtime.evaluate", { expression: "document.getElementById('out').textContent", returnByValue: true })
    expect(read).toMatchObject({ result: { value: "idle" } })
    // In the library's utility world, by its context id as svc's session knows it.
    await page.ariaSnapshot({ mode: "ai" })
    expect(info.utility).toBeDefined()
    const inUtility = await info.direct!("Runtime.evaluate", { expression: "document.title + ' ' + typeof window.n", contextId: info.utility, returnByValue: true })
    expect(inUtility).toMatchObject({ result: { value: "raw undefined" } })
    // The browser's own error, said as the library says one.
    await expect(info.direct!("Runtime.evaluate", { expression: "1", contextId: 987_654 })).rejects.toThrow(/^Protocol error \(Runtime\.evaluate\): /)

    // The library is undisturbed: it acts and reads on the same page, and svc's session still hears the page's news.
    await page.getByRole("button", { name: "Press" }).click()
    expect(await page.locator("#out").textContent()).toBe("clicked")
    const before = info.navigations
    await page.goto(`${base}/again`)
    expect(await info.navigatedPast(before, 5_000)).toBe(true)
    expect(await info.direct!("Runtime.evaluate", { expression: "location.pathname", returnByValue: true })).toMatchObject({ result: { value: "/again" } })

    await page.close()
    await expect(info.direct!("Runtime.evaluate", { expression: "1" })).rejects.toThrow(/Protocol error \(Runtime\.evaluate\)/)
  })

  it("the library dialling a URL itself has none (svc's commands then go through the library)", async () => {
    const dialled = await chromium.connectOverCDP(browserProcess.cdpUrl, { timeout: 20_000 })
    try {
      expect(rawSendsOf(dialled)).toBeUndefined()
      const page = await (dialled.contexts()[0] ?? await dialled.newContext()).newPage()
      const info = await openPageSession(page, rawSendsOf(dialled))
      expect(info.direct).toBeUndefined()
      await page.close()
    } finally {
      await dialled.close().catch(() => undefined)
    }
  })
})
