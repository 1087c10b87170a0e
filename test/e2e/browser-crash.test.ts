import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// After the managed Chromium crashes: status says so at once, and a request without a targetId fails saying
// the browser was started again and its tab is gone, instead of acting on the new browser's blank tab; a
// navigation, which needs a tab and not that one, goes on in the new browser's tab.

describe("after the browser crashes", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({ "/": "<!doctype html><title>Work</title><button>Save</button>" })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("status is truthful at once; a request without targetId says the tab is gone; opening a tab goes on", async () => {
    expect((await gw.svc("browser", "open", pages.url("/"))).code).toBe(0)
    const status = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    expect(status.running).toBe(true)
    process.kill(status.pid, "SIGKILL")
    const after = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    expect(after.running).toBe(false)

    for (const args of [["snapshot"], ["click", "1"], ["screenshot"]]) {
      const r = await gw.svc("browser", ...args)
      expect(r.code, `${args.join(" ")}: ${r.stdout}`).not.toBe(0)
      expect(r.stderr).toContain("was killed by SIGKILL and was started again")
      expect(r.stderr).toContain("svc browser open")
      expect(r.stdout).not.toContain("about:blank")
    }
    // The browser did come back, with its own blank tab, which a targetId still reaches.
    const restarted = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    expect(restarted.running).toBe(true)
    expect(restarted.pid).not.toBe(status.pid)
    const tabs = JSON.parse((await gw.svc("browser", "tabs", "--json")).stdout).tabs
    expect(tabs.length).toBeGreaterThan(0)
    expect(tabs.every((t: { url: string }) => !t.url.includes("127.0.0.1"))).toBe(true)

    expect((await gw.svc("browser", "open", pages.url("/"))).code).toBe(0)
    const snap = await gw.svc("browser", "snapshot")
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.stdout).toContain('button "Save"')
  }, 90_000)

  it("a navigation without targetId after a crash goes on in the new browser's tab", async () => {
    const status = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    process.kill(status.pid, "SIGKILL")
    const refused = await gw.svc("browser", "snapshot")
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("svc browser navigate <url>")
    const nav = await gw.svc("browser", "navigate", pages.url("/"))
    expect(nav.code, nav.stderr).toBe(0)
    const tabs = JSON.parse((await gw.svc("browser", "tabs", "--json")).stdout).tabs
    expect(tabs).toHaveLength(1)
    expect(tabs[0].url).toBe(pages.url("/"))
    expect(tabs[0].current).toBe(true)
    const snap = await gw.svc("browser", "snapshot")
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.stdout).toContain('button "Save"')
  }, 90_000)
})
