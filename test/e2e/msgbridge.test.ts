import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, postWebhook, startFakeBridge, newMessageWebhook } from "../support/fakeBridge.js"
import { type Gateway, makeStateDir, startGateway, waitUntil } from "../support/gateway.js"

// The msgbridge channel through the real gateway process: webhooks of the real shape in, what the fake
// bridge server receives out, with the echo agent.

const message = newMessageWebhook

const until = waitUntil

describe("msgbridge channel", () => {
  let bridge: FakeBridge
  let gw: Gateway
  let stateDir: string
  const hook = (query = `?password=${encodeURIComponent(bridge.password)}`) =>
    `http://127.0.0.1:${gw.port}/msgbridge-webhook${query}`
  const texts = () => bridge.callsTo("/api/v1/message/text").map((c) => c.body as { chatGuid: string; message: string })

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
    stateDir = makeStateDir({
      channels: {
        msgbridge: {
          serverUrl: bridge.url,
          password: bridge.password,
          dmPolicy: "pairing",
          allowFrom: ["+1 (555) 123-0001"]
        }
      },
      messages: { responsePrefix: "" }
    })
    gw = await startGateway({ stateDir })
  })
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
  })

  it("answers an allowed sender through the bridge, with typing and a read receipt", async () => {
    const r = await postWebhook(hook(), message("GUID-1", "hello there"))
    expect(r.status).toBe(200)
    await until(() => texts().length === 1)
    expect(texts()[0]).toMatchObject({ chatGuid: "iMessage;-;+15551230001", message: "echo: hello there" })
    expect(bridge.callsTo("/api/v1/chat/iMessage;-;+15551230001/read").length).toBe(1)
    expect(bridge.callsTo("/api/v1/chat/iMessage;-;+15551230001/typing", "POST").length).toBeGreaterThanOrEqual(1)
    expect(bridge.calls.every((c) => !c.passwordHeader)).toBe(true)
  })

  it("answers a replayed webhook once, even across a gateway restart", async () => {
    await postWebhook(hook(), message("GUID-1", "hello there"))
    await new Promise((r) => setTimeout(r, 300))
    expect(texts()).toHaveLength(1)
    expect(await gw.stop()).toBe(0)
    gw = await startGateway({ stateDir })
    const again = await postWebhook(hook(), message("GUID-1", "hello there"))
    expect(again.status).toBe(200)
    await new Promise((r) => setTimeout(r, 300))
    expect(texts()).toHaveLength(1)
  })

  it("sends an unknown sender a pairing code once, then answers after approval", async () => {
    const stranger = "+15559990000"
    await postWebhook(hook(), message("GUID-S1", "hi?", stranger))
    await until(() => texts().some((t) => t.chatGuid === `iMessage;-;${stranger}`))
    const first = texts().filter((t) => t.chatGuid === `iMessage;-;${stranger}`)
    const code = /pairing code is ([A-Z0-9]{8})/.exec(first[0]!.message)![1]!
    await postWebhook(hook(), message("GUID-S2", "hello??", stranger))
    await new Promise((r) => setTimeout(r, 300))
    expect(texts().filter((t) => t.chatGuid === `iMessage;-;${stranger}`)).toHaveLength(1)

    const listed = JSON.parse((await gw.svc("pairing", "list", "msgbridge", "--json")).stdout)
    expect(listed.pending).toEqual([expect.objectContaining({ code, sender: stranger })])
    expect((await gw.svc("status")).stdout).toContain("pairing: 1 pending (svc pairing list msgbridge)")
    expect((await gw.svc("pairing", "approve", "msgbridge", code)).code).toBe(0)
    await postWebhook(hook(), message("GUID-S3", "now?", stranger))
    await until(() => texts().some((t) => t.message === "echo: now?"))
  })

  it("never answers its own messages, and surfaces a tapback as a system event", async () => {
    await postWebhook(hook(), message("GUID-ME", "from me", "+15551230001", { isFromMe: true }))
    await postWebhook(
      hook(),
      message("GUID-TB", "Loved “hello there”", "+15551230001", {
        associatedMessageGuid: "p:0/GUID-1",
        associatedMessageType: "love"
      })
    )
    await until(() => texts().some((t) => t.message.includes("reacted with love")))
    expect(texts().some((t) => t.message.includes("from me"))).toBe(false)
  })

  it("refuses a webhook without the password, a proxied one from loopback, oversize and malformed bodies", async () => {
    const sent = texts().length
    expect((await postWebhook(hook("?password=wrong"), message("GUID-X1", "x"))).status).toBe(401)
    // From loopback with no password: accepted (the bridge on this machine)…
    expect((await postWebhook(hook(""), message("GUID-L1", "local"))).status).toBe(200)
    // …but not when it carries forwarding headers: then it is proxied and only the password admits it.
    const proxied = await postWebhook(hook(""), message("GUID-X2", "x"), { headers: { "x-forwarded-for": "203.0.113.9" } })
    expect(proxied.status).toBe(401)
    expect((await postWebhook(hook(), null, { rawBody: "{not json" })).status).toBe(400)
    const big = await postWebhook(hook(), null, { rawBody: JSON.stringify({ type: "new-message", data: { pad: "x".repeat(1_100_000) } }) })
    expect(big.status).toBe(413)
    expect((await postWebhook(hook(), { type: "server-update", data: {} })).status).toBe(200)
    expect((await postWebhook(hook(), { type: "typing-indicator", data: { display: true, guid: "iMessage;-;+15551230001" } })).status).toBe(200)
    await until(() => texts().length === sent + 1)
    expect(texts().at(-1)!.message).toBe("echo: local")
  })
})
