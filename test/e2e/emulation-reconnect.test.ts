import * as http from "node:http"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchTestChromium, type TestChromium } from "../support/chromium.js"
import { type Gateway, startGateway, waitUntil } from "../support/gateway.js"

// Emulation settings stay in force when the gateway's automation connection to the browser is re-made.
// The browser is a profile reached through a loopback TCP proxy; the test drops the proxy's sockets as a
// network drop would: Chromium and its tabs live on, every CDP session the gateway had is gone (and with it
// each override it set), and the gateway connects again on its next request.

/** A loopback TCP proxy in front of a browser's DevTools port whose open connections the test can drop. */
const droppingProxy = async (target: number) => {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>()
  let automationConnects = 0
  const automation = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: target })
    const pair = { client, upstream }
    pairs.add(pair)
    client.once("data", (first: Buffer) => {
      const head = first.toString("latin1")
      // The automation library names itself in the User-Agent of its websocket upgrade.
      if (/^upgrade: websocket/im.test(head) && /^user-agent: playwright/im.test(head)) {
        automationConnects++
        automation.add(client)
        client.once("close", () => automation.delete(client))
      }
    })
    client.pipe(upstream).pipe(client)
    const end = () => {
      pairs.delete(pair)
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
    /** Websocket connections the automation library made so far, and how many are open. */
    automationConnects: () => automationConnects,
    automationOpen: () => automation.size,
    /** Drops every connection through the proxy (the browser itself is untouched). */
    drop: () => {
      for (const { client, upstream } of [...pairs]) {
        client.destroy()
        upstream.destroy()
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const SECRET_HEADER = "kept-across-drops-7f3a"

describe("emulation survives a re-made connection to the browser", () => {
  let gw: Gateway
  let chromium: TestChromium
  let proxy: Awaited<ReturnType<typeof droppingProxy>>
  let server: http.Server
  let site = ""

  const svc = (...args: Array<string>) => gw.svc(...args)
  const ok = async (...args: Array<string>) => {
    const r = await svc(...args)
    expect(r.code, `svc ${args.join(" ")}: ${r.stderr}`).toBe(0)
    return r.stdout
  }
  const json = async (...args: Array<string>) => JSON.parse(await ok(...args, "--json"))
  const evaluate = async (fn: string, targetId?: string) =>
    (await json("browser", "evaluate", "--fn", fn, ...(targetId !== undefined ? ["--target-id", targetId] : []))).result

  /** What the tab reports of each setting, read in the page. */
  const seen = async (targetId: string) => ({
    timeZone: await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId),
    language: await evaluate("() => [navigator.language, Intl.NumberFormat().resolvedOptions().locale]", targetId),
    device: await evaluate("() => [navigator.userAgent.includes('iPhone'), innerWidth, devicePixelRatio, navigator.maxTouchPoints]", targetId),
    dark: await evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches", targetId),
    header: await evaluate(`() => fetch('${site}/echo').then((r) => r.json()).then((h) => h['x-svc-emu'] ?? null)`, targetId),
    position: await evaluate(
      "() => new Promise((ok, ko) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, p.coords.longitude]), " +
        "(e) => ko(new Error(e.message)), { timeout: 5000 }))",
      targetId
    )
  })

  const expected = {
    timeZone: "Asia/Tokyo",
    language: ["fr-FR", "fr-FR"],
    device: [true, 390, 3, 5],
    dark: true,
    header: SECRET_HEADER,
    position: [48.8584, 2.2945]
  }

  /** Drops the connection and waits until the gateway notices nothing (the next request reconnects). */
  const dropConnection = async () => {
    const before = proxy.automationConnects()
    expect(proxy.automationOpen()).toBe(1)
    proxy.drop()
    await waitUntil(() => proxy.automationOpen() === 0, 5_000)
    return before
  }

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/echo") {
        res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" })
        res.end(JSON.stringify(req.headers))
        return
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end('<!doctype html><meta name="viewport" content="width=device-width"><title>Emu</title><p>emulated</p>')
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    site = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
    chromium = await launchTestChromium()
    proxy = await droppingProxy(chromium.port)
    gw = await startGateway({ config: { browser: { defaultProfile: "far", profiles: { far: { cdpUrl: proxy.url } } } } })
  })

  afterAll(async () => {
    await gw?.stop()
    await proxy?.close()
    await chromium?.kill()
    await new Promise((resolve) => server?.close(resolve))
  })

  it("a tab keeps its time zone, locale, device and colour scheme, and the profile its headers and position", async () => {
    const { targetId } = await json("browser", "open", `${site}/`)
    await ok("browser", "set", "timezone", "Asia/Tokyo")
    await ok("browser", "set", "locale", "fr-FR")
    await ok("browser", "set", "device", "iPhone 13")
    await ok("browser", "set", "media", "dark")
    await ok("browser", "set", "headers", "--headers-json", JSON.stringify({ "X-Svc-Emu": SECRET_HEADER }))
    await ok("browser", "set", "geolocation", "48.8584", "2.2945", "--origin", site)
    expect(await seen(targetId)).toEqual(expected)

    const connects = await dropConnection()
    // The first request after the drop makes a new connection, and the tab already has every setting back.
    const t0 = performance.now()
    const zone = await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId)
    const first = performance.now() - t0
    expect(zone).toBe("Asia/Tokyo")
    const t1 = performance.now()
    await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId)
    console.log(`[emulation-reconnect] evaluate: ${first.toFixed(0)} ms right after the drop, ${(performance.now() - t1).toFixed(0)} ms next`)
    expect(await seen(targetId)).toEqual(expected)
    expect(proxy.automationConnects()).toBe(connects + 1)

    // Once more: the settings are not a one-off replay. A screenshot (taken over CDP, without the automation
    // library) is the first request after this drop: the device's size and scale are back before it.
    const shot = await json("browser", "screenshot", "--target-id", targetId)
    await dropConnection()
    const again = await json("browser", "screenshot", "--target-id", targetId)
    console.log(`[emulation-reconnect] screenshot ${shot.width}x${shot.height} before the drop, ${again.width}x${again.height} after`)
    expect([again.width, again.height]).toEqual([shot.width, shot.height])
    expect(again.width).toBe(390)
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId)).toBe("Asia/Tokyo")
    expect(await evaluate("() => navigator.userAgent.includes('iPhone')", targetId)).toBe(true)

    // A later change is what is kept from then on.
    await ok("browser", "set", "media", "light", "--target-id", targetId)
    await ok("browser", "set", "timezone", "America/New_York", "--target-id", targetId)
    await dropConnection()
    expect(await evaluate("() => matchMedia('(prefers-color-scheme: light)').matches", targetId)).toBe(true)
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId)).toBe("America/New_York")

    // A tab opened after the drop gets the profile-wide settings, not another tab's.
    await dropConnection()
    const fresh = (await json("browser", "open", `${site}/`)).targetId
    expect(fresh).not.toBe(targetId)
    expect(await evaluate(`() => fetch('${site}/echo').then((r) => r.json()).then((h) => h['x-svc-emu'] ?? null)`, fresh))
      .toBe(SECRET_HEADER)
    expect(await evaluate(seenPosition, fresh)).toEqual(expected.position)
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", fresh)).not.toBe("America/New_York")
    expect(await evaluate("() => navigator.userAgent.includes('iPhone')", fresh)).toBe(false)
    // Its document request carried the header too (it was opened on the re-made connection).
    const requests = await json("browser", "requests", "--target-id", fresh)
    expect(requests.entries.some((e: { url: string }) => e.url === `${site}/`)).toBe(true)

    // Without a drop too: a tab opened on the same connection gets the profile-wide settings.
    const later = (await json("browser", "open", `${site}/`)).targetId
    expect(await evaluate(`() => fetch('${site}/echo').then((r) => r.json()).then((h) => h['x-svc-emu'] ?? null)`, later))
      .toBe(SECRET_HEADER)
    expect(await evaluate(seenPosition, later)).toEqual(expected.position)

    // No header value reached the gateway's log.
    expect(gw.output()).not.toContain(SECRET_HEADER)
  })

  it("offline stays on across a drop, and off once turned off", async () => {
    const { targetId } = await json("browser", "open", `${site}/`)
    await ok("browser", "set", "offline", "on")
    expect(await evaluate("() => navigator.onLine", targetId)).toBe(false)
    await dropConnection()
    expect(await evaluate("() => navigator.onLine", targetId)).toBe(false)
    expect(await evaluate(`() => fetch('${site}/echo').then(() => 'reached', () => 'failed')`, targetId)).toBe("failed")
    await ok("browser", "set", "offline", "off", "--target-id", targetId)
    await dropConnection()
    expect(await evaluate("() => navigator.onLine", targetId)).toBe(true)
  })

  it("a throttled tab is throttled again after a drop, and offline still cuts it off", async () => {
    const { targetId } = await json("browser", "open", `${site}/`)
    const fetchMs = () => evaluate(`async () => { const t0 = performance.now(); try { await fetch('${site}/echo?' + Math.random()) } ` +
      "catch { return 'failed' } return performance.now() - t0 }", targetId)
    await ok("browser", "set", "throttle", "--latency", "1200", "--target-id", targetId)
    await dropConnection()
    expect(await fetchMs()).toBeGreaterThanOrEqual(1_100)
    await ok("browser", "set", "offline", "on", "--target-id", targetId)
    await dropConnection()
    expect(await fetchMs()).toBe("failed")
    await ok("browser", "set", "offline", "off", "--target-id", targetId)
    expect(await fetchMs()).toBeGreaterThanOrEqual(1_100)
    await ok("browser", "set", "throttle", "none", "--target-id", targetId)
    expect(await fetchMs()).toBeLessThan(700)
  })

  it("offline stays on through back and forward (a history step keeps the page's sessions)", async () => {
    const { targetId } = await json("browser", "open", `${site}/`)
    // Entries of one document: no load, no back/forward cache, only the history step itself.
    await evaluate("() => { history.pushState({}, '', '?second'); return 1 }", targetId)
    await ok("browser", "set", "offline", "on", "--target-id", targetId)
    expect(await evaluate("() => navigator.onLine", targetId)).toBe(false)
    await ok("browser", "back", "--target-id", targetId)
    expect(await evaluate("() => location.search", targetId)).toBe("")
    expect(await evaluate("() => navigator.onLine", targetId)).toBe(false)
    await ok("browser", "forward", "--target-id", targetId)
    expect(await evaluate("() => navigator.onLine", targetId)).toBe(false)
    await ok("browser", "set", "offline", "off", "--target-id", targetId)
  })

  it("stopping the profile lets go of its settings (the tabs of a remote browser live on without them)", async () => {
    const { targetId } = await json("browser", "open", `${site}/`)
    await ok("browser", "set", "timezone", "Pacific/Auckland")
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId)).toBe("Pacific/Auckland")
    await ok("browser", "stop")
    await waitUntil(() => proxy.automationOpen() === 0, 5_000)
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone", targetId)).not.toBe("Pacific/Auckland")
    expect(await evaluate(`() => fetch('${site}/echo').then((r) => r.json()).then((h) => h['x-svc-emu'] ?? null)`, targetId))
      .toBeNull()
  })
})

const seenPosition = "() => new Promise((ok, ko) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, " +
  "p.coords.longitude]), (e) => ko(new Error(e.message)), { timeout: 5000 }))"
