import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// `svc browser set throttle` through the real path (bin/svc → gateway → Chromium): requests of the throttled
// tab wait out the latency and the bandwidth, its scripts run slower, another tab keeps the full speed, the
// profile's offline switch still cuts the throttled tab off, and none gives the speed back. Bounds are one-sided
// where the machine's load could move them (a slow machine makes nothing faster).

const LATENCY = 1_500

describe("svc browser set throttle", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { ok } = browserCli(() => gw)
  const json = async (...args: ReadonlyArray<string>) => JSON.parse(await ok(...args, "--json"))
  const evaluate = async (fn: string, targetId: string) => (await json("evaluate", "--fn", fn, "--target-id", targetId)).result

  /** How long the tab takes to fetch a body of `kb` kilobytes (ms), or "failed". */
  const fetchMs = (targetId: string, kb = 1) =>
    evaluate(
      `async () => { const t0 = performance.now(); try { await (await fetch('/body?kb=${kb}&n=' + Math.random())).text() } ` +
        "catch { return 'failed' } return Math.round(performance.now() - t0) }",
      targetId
    ) as Promise<number | "failed">
  /** The quickest of `runs` runs of a fixed busy loop in the tab (ms). */
  const loopMs = async (targetId: string, runs: number) => {
    const times: Array<number> = []
    for (let i = 0; i < runs; i++) {
      times.push(await evaluate("() => { const t0 = performance.now(); let x = 0; for (let i = 0; i < 3e7; i++) x += i % 7; return performance.now() - t0 }", targetId))
    }
    return Math.min(...times)
  }

  beforeAll(async () => {
    pages = await servePages({
      "/page": "<!doctype html><title>Throttled</title><p>page</p>",
      "/body": (req) => ({ type: "text/plain", body: "x".repeat(1024 * Number(new URL(req.url!, "http://x").searchParams.get("kb") ?? 1)) })
    })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("slows the tab's requests and CPU, not another tab's; a navigation keeps it; none gives the speed back", async () => {
    const slow = (await json("open", pages.url("/page"))).targetId as string
    const other = (await json("open", pages.url("/page"))).targetId as string
    const ownLoop = await loopMs(slow, 3)

    expect(await ok("set", "throttle", "--latency", String(LATENCY), "--cpu", "10", "--target-id", slow))
      .toBe(`network throttled (${LATENCY} ms latency, no down cap, no up cap), CPU 10x slower (this tab)`)
    expect(await fetchMs(slow)).toBeGreaterThanOrEqual(LATENCY - 100)
    expect(await fetchMs(other)).toBeLessThan(LATENCY - 500)
    const slowLoop = await loopMs(slow, 2)
    console.log(`[throttle] busy loop: ${ownLoop.toFixed(0)} ms at its own speed, ${slowLoop.toFixed(0)} ms at 10x slower`)
    expect(slowLoop).toBeGreaterThan(ownLoop * 3)

    // Another site is another renderer process: the tab's throttling goes with it.
    await ok("navigate", pages.url("/page").replace("127.0.0.1", "localhost"), "--target-id", slow)
    expect(await fetchMs(slow)).toBeGreaterThanOrEqual(LATENCY - 100)
    expect(await loopMs(slow, 1)).toBeGreaterThan(ownLoop * 3)

    // A preset sets latency and bandwidth: 16 KB at 400 kbit/s (50 KB/s) after its 2 s of latency.
    expect(await ok("set", "throttle", "slow-3g", "--target-id", slow))
      .toBe("network slow-3g (2000 ms latency, 400 kbit/s down, 400 kbit/s up), CPU 10x slower (this tab)")
    expect(await fetchMs(slow, 16)).toBeGreaterThanOrEqual(2_000 + 200)

    expect(await ok("set", "throttle", "none", "--target-id", slow)).toBe("network at full speed, CPU at its own speed (this tab)")
    expect(await fetchMs(slow)).toBeLessThan(LATENCY - 500)
    expect(await loopMs(slow, 3)).toBeLessThan(slowLoop)
  })

  it("offline still cuts a throttled tab off, and online gives it its throttled network back", async () => {
    const { targetId } = await json("open", pages.url("/page"))
    await ok("set", "throttle", "--latency", String(LATENCY), "--target-id", targetId)
    await ok("set", "offline", "on", "--target-id", targetId)
    expect(await fetchMs(targetId)).toBe("failed")
    await ok("set", "offline", "off", "--target-id", targetId)
    expect(await fetchMs(targetId)).toBeGreaterThanOrEqual(LATENCY - 100)
    await ok("set", "throttle", "none", "--target-id", targetId)
    expect(await fetchMs(targetId)).toBeLessThan(LATENCY - 500)
  })

  it("refuses a request that asks nothing, and a rate out of range, saying what to give", async () => {
    const nothing = await gw.svc("browser", "set", "throttle")
    expect(nothing.code).toBe(1)
    expect(nothing.stderr).toContain("set throttle: give a network preset (slow-3g, fast-3g, slow-4g, fast-4g, or none")
    const tooFast = await gw.svc("browser", "set", "throttle", "--cpu", "50")
    expect(tooFast.code).toBe(1)
    expect(tooFast.stderr).toMatch(/cpu/)
    expect(tooFast.stderr.trim().split("\n")).toHaveLength(1)
  })
})
