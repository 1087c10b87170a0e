import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFakeBridge, type FakeBridge } from "../support/fakeBridge.js"
import { type Gateway, makeStateDir, request, startGateway } from "../support/gateway.js"

// Guessing the token or the webhook password is slowed: a burst of wrong ones from one address is answered
// a few a second at most (then refused at once), while the right credentials are answered at once all along.

describe("failed authentication is throttled", () => {
  let gw: Gateway
  let bridge: FakeBridge

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
    gw = await startGateway({
      stateDir: makeStateDir({ channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open", allowFrom: ["*"] } } })
    })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
  })

  it("a burst of wrong tokens is slowed to a trickle; the right token is answered at once meanwhile", async () => {
    const t0 = Date.now()
    const burst = Array.from({ length: 200 }, (_, i) =>
      request(gw.controlPort, "GET", "/profiles", { authorization: `Bearer wrong-${i}` }))
    // While the burst waits: the right token.
    await new Promise((r) => setTimeout(r, 200))
    const ok0 = Date.now()
    const ok = await request(gw.controlPort, "GET", "/profiles", { authorization: `Bearer ${gw.token()}` })
    const okMs = Date.now() - ok0
    expect(ok.status).toBe(200)
    expect(okMs).toBeLessThan(1_500)
    const answers = await Promise.all(burst)
    const statuses = answers.map((a) => a.status)
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(150)
    for (const a of answers) expect(a.json()._tag).toMatch(/Unauthorized|TooManyRequests/)
    // The 401s that were answered (not refused) came one at a time, with pauses.
    expect(Date.now() - t0).toBeGreaterThan(2_000)
    console.log(`200 wrong tokens: ${statuses.filter((s) => s === 401).length} answered 401, ${statuses.filter((s) => s === 429).length} refused 429 in ${Date.now() - t0} ms; right token ${okMs} ms`)
  }, 120_000)

  it("wrong webhook passwords are slowed the same way; the right one is not", async () => {
    const wrong = Array.from({ length: 80 }, (_, i) =>
      request(gw.port, "POST", `/msgbridge-webhook?password=nope-${i}`, { "content-type": "application/json" }, { type: "server-update", data: {} }))
    await new Promise((r) => setTimeout(r, 200))
    const t0 = Date.now()
    const ok = await request(gw.port, "POST", `/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`, { "content-type": "application/json" }, {
      type: "server-update",
      data: {}
    })
    expect(ok.status).toBe(200)
    expect(Date.now() - t0).toBeLessThan(1_500)
    const statuses = (await Promise.all(wrong)).map((a) => a.status)
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0)
  }, 120_000)
})
