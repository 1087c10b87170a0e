import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchTestChromium, type TestChromium } from "../support/chromium.js"
import { freeCdpPort, type Gateway, request, servePages, startGateway, waitUntil } from "../support/gateway.js"

// A stopped or deleted profile lets go of its automation library connection at once: a browser started
// again on that port gets a fresh connection, and a deleted profile leaves no connection behind.

/**
 * A loopback TCP proxy in front of a browser's DevTools port that counts the automation library's open
 * websockets (Playwright names itself in the User-Agent of its upgrade request).
 */
const devtoolsProxy = async (target: number) => {
  const open = new Set<net.Socket>()
  /** The upgrade requests of the library's websockets, as sent. */
  const upgrades: Array<string> = []
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: target })
    client.once("data", (first: Buffer) => {
      const head = first.toString("latin1")
      if (/^upgrade: websocket/im.test(head) && /^user-agent: playwright/im.test(head)) {
        upgrades.push(head)
        open.add(client)
        client.once("close", () => open.delete(client))
      }
    })
    client.pipe(upstream).pipe(client)
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on("error", end)
    upstream.on("error", end)
    client.on("close", end)
    upstream.on("close", end)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    automationSockets: () => open.size,
    upgrades: () => [...upgrades],
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("drop the automation connection when a profile stops", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  let chromium: TestChromium
  let proxy: Awaited<ReturnType<typeof devtoolsProxy>>

  beforeAll(async () => {
    pages = await servePages({
      "/": `<!doctype html><title>Counter</title><p id="out">0</p>
<button onclick="out.textContent = String(Number(out.textContent) + 1)">Add</button>`
    })
    chromium = await launchTestChromium()
    proxy = await devtoolsProxy(chromium.port)
    const cdpPort = await freeCdpPort()
    gw = await startGateway({
      config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort }, far: { cdpUrl: proxy.url } } } }
    })
  })

  afterAll(async () => {
    await gw?.stop()
    await proxy?.close()
    await chromium?.kill()
    await pages?.close()
  })

  /** Opens the page, snapshots it and clicks its button by ref: the automation library at work. */
  const clickOnce = async (...profile: Array<string>) => {
    const opened = await gw.svc("browser", "open", pages.url("/"), ...profile)
    expect(opened.code, opened.stderr).toBe(0)
    const snap = await gw.svc("browser", "snapshot", ...profile)
    expect(snap.code, snap.stderr).toBe(0)
    const ref = /button "Add" \[ref=(\w+)\]/.exec(snap.stdout)?.[1]
    expect(ref, snap.stdout).toBeDefined()
    // Timed on the control API: the CLI's own start, slow on a loaded machine, is not what this measures.
    const query = profile.length === 2 ? `?profile=${encodeURIComponent(profile[1]!)}` : ""
    const t0 = performance.now()
    const click = await request(gw.controlPort, "POST", `/act${query}`, { authorization: `Bearer ${gw.token()}` }, {
      kind: "click",
      ref
    })
    const ms = performance.now() - t0
    expect(click.status, click.body).toBe(200)
    const after = await gw.svc("browser", "snapshot", "--format", "aria", ...profile)
    expect(after.stdout).toContain('paragraph: "1"')
    return ms
  }

  it("a managed profile stopped and started again answers actions at once", async () => {
    await clickOnce()
    const stopped = await gw.svc("browser", "stop")
    expect(stopped.stdout.trim()).toBe("stopped svc")
    const started = JSON.parse((await gw.svc("browser", "start", "--json")).stdout)
    expect(started.launched).toBe(true)
    // The first click on the new browser does not wait out a look-up on the old connection (3 s).
    expect(await clickOnce()).toBeLessThan(2_500)
  })

  it("stopping or deleting a remote profile closes its connection; the next use connects again", async () => {
    await clickOnce("--browser-profile", "far")
    expect(proxy.automationSockets()).toBe(1)
    const stopped = await gw.svc("browser", "stop", "--browser-profile", "far")
    expect(stopped.code, stopped.stderr).toBe(0)
    await waitUntil(() => proxy.automationSockets() === 0, 5_000)

    await clickOnce("--browser-profile", "far")
    expect(proxy.automationSockets()).toBe(1)
    const deleted = await gw.svc("browser", "delete-profile", "far")
    expect(deleted.code, deleted.stderr).toBe(0)
    await waitUntil(() => proxy.automationSockets() === 0, 5_000)
    // The browser the profile pointed at was not ours to stop.
    expect((await fetch(`${chromium.cdpUrl}/json/version`)).ok).toBe(true)

    // A browser on this machine: the library's websocket offers no compression (each message would be deflated
    // by the browser and inflated here, for nothing).
    expect(proxy.upgrades().length).toBeGreaterThanOrEqual(2)
    for (const head of proxy.upgrades()) expect(head).not.toMatch(/permessage-deflate/i)
  })
})
