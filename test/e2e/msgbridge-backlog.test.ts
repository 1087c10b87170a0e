import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, startFakeBridge } from "../support/fakeBridge.js"
import { type Gateway, makeStateDir, startGateway } from "../support/gateway.js"
import * as http from "node:http"

// A burst of webhooks is answered faster than it is processed: the rest waits in the journal. Stopping the
// gateway with that backlog and starting it again must still answer every message exactly once.

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 })
const post = (port: number, password: string, payload: unknown) =>
  new Promise<number>((resolve, reject) => {
    const body = JSON.stringify(payload)
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: `/msgbridge-webhook?password=${encodeURIComponent(password)}`,
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const message = (i: number) => ({
  type: "new-message",
  data: {
    guid: `BACKLOG-${i}`,
    text: `b${i}`,
    handle: { address: "+15551230001", service: "iMessage" },
    isFromMe: false,
    attachments: [],
    dateCreated: Date.now(),
    chats: [{ guid: "iMessage;-;+15551230001", style: 45, chatIdentifier: "+15551230001", displayName: "" }]
  }
})

describe("msgbridge backlog across a restart", () => {
  let bridge: FakeBridge
  let gw: Gateway | undefined
  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
  })
  afterAll(async () => {
    agent.destroy()
    await gw?.stop()
    await bridge?.close()
  })

  it("every accepted message is answered exactly once, the backlog finished after the restart", async () => {
    const total = 600
    const stateDir = makeStateDir({ channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open" } } })
    gw = await startGateway({ stateDir })
    let next = 0
    const statuses: Array<number> = []
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < total) statuses.push(await post(gw!.port, bridge.password, message(next++)))
    }))
    expect(statuses.every((s) => s === 200)).toBe(true)
    expect(await gw.stop()).toBe(0)
    const before = bridge.callsTo("/api/v1/message/text").length
    gw = await startGateway({ stateDir })
    const texts = () => bridge.callsTo("/api/v1/message/text").map((c) => (c.body as { message: string }).message)
    const t0 = Date.now()
    while (new Set(texts()).size < total && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50))
    await new Promise((r) => setTimeout(r, 300))
    const sent = texts()
    expect(new Set(sent).size).toBe(total)
    expect(sent).toHaveLength(total) // none twice
    // (How much was left for the restart depends on the machine; on this one most of it.)
    expect(before).toBeLessThanOrEqual(total)
  }, 90_000)
})
