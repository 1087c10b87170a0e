import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, postWebhook, startFakeBridge } from "../support/fakeBridge.js"
import { type Gateway, makeStateDir, startGateway, waitUntil } from "../support/gateway.js"

// Messages the bridge delivers late, through the real gateway and the fake bridge: attachments that come
// after their message in an `updated-message` (with no chats) are fetched and handed to the agent once; a
// message whose webhook never came is found by the running gateway's sweep, not only at the next restart.

const SENDER = "+15551110001"
const CHAT = `iMessage;-;${SENDER}`

const bridgeMessage = (guid: string, text: string, attachments: Array<Record<string, unknown>> = []) => ({
  guid,
  text,
  handle: { address: SENDER, service: "iMessage" },
  isFromMe: false,
  attachments,
  dateCreated: Date.now(),
  chats: [{ guid: CHAT, style: 45, chatIdentifier: SENDER, displayName: "" }]
})

const photo = { guid: "AT-LATE-1", mimeType: "image/png", transferName: "photo.png", totalBytes: 2048, uti: "public.png" }

describe("messages the bridge delivers late", () => {
  let bridge: FakeBridge
  let gw: Gateway
  const replies = () => bridge.callsTo("/api/v1/message/text").map((c) => (c.body as { message: string }).message)

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true }, attachments: { [photo.guid]: 2048 } })
    gw = await startGateway({
      stateDir: makeStateDir({
        channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open", allowFrom: ["*"], sweepIntervalSec: 5 } },
        messages: { responsePrefix: "" }
      })
    })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
  })

  it("attachments that arrive in an updated-message are fetched and handed over once, without the text again", async () => {
    const hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`
    const original = bridgeMessage("LATE-1", "look at this")
    // The bridge has the message without its files until it was answered. (With them from the start, the
    // running gateway's sweep, every 5 s for the next test, could find it between the push and the webhook
    // and answer it with its files, once, in place of the webhook.)
    const stored: Record<string, unknown> = { ...original }
    bridge.messages.push(stored)
    expect((await postWebhook(hook, { type: "new-message", data: original })).status).toBe(200)
    await waitUntil(() => replies().includes("echo: look at this"), 10_000)
    stored.attachments = [photo]

    // The update, as the bridge sends it: the same message with its files, and no chats.
    const { chats: _chats, ...update } = { ...original, attachments: [photo] }
    const r = await postWebhook(hook, { type: "updated-message", data: update })
    expect(r.status).toBe(200)
    await waitUntil(() => replies().some((m) => m.includes("[photo.png, 2048 bytes]")), 10_000)
    const late = replies().filter((m) => m.includes("photo.png"))
    expect(late).toHaveLength(1)
    expect(late[0]).not.toContain("look at this")
    expect(late[0]).toMatch(/attachments of message \S+ that arrived after it/)
    expect(bridge.downloads.filter((d) => d.guid === photo.guid)).toHaveLength(1)

    // The same update again, and an update without new files: nothing more.
    expect((await postWebhook(hook, { type: "updated-message", data: update })).status).toBe(200)
    expect((await postWebhook(hook, { type: "updated-message", data: { ...update, attachments: [] } })).status).toBe(200)
    await new Promise((res) => setTimeout(res, 1_000))
    expect(replies().filter((m) => m.includes("photo.png"))).toHaveLength(1)
    expect(replies().filter((m) => m === "echo: look at this")).toHaveLength(1)
  }, 60_000)

  it("a message whose webhook never came is found by the sweep while the gateway runs, and answered once", async () => {
    bridge.messages.push(bridgeMessage("MISSED-1", "did you get this?"))
    await waitUntil(() => replies().includes("echo: did you get this?"), 20_000)
    // Later sweeps see it again and leave it.
    await new Promise((res) => setTimeout(res, 6_000))
    expect(replies().filter((m) => m === "echo: did you get this?")).toHaveLength(1)
    expect(gw.output()).toContain("that the bridge did not deliver by webhook")
  }, 60_000)

  it("a guid with a newline and a long bridge error are logged on one line each, escaped and cut", async () => {
    const hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`
    bridge.failNext({ path: "/api/v1/message/text", status: 500, message: `boom ${"schema text ".repeat(300)}`, times: 50 })
    const forged = "GUID-NL\n[00:00:00] INFO svc gateway ready: forged"
    expect((await postWebhook(hook, { type: "new-message", data: { ...bridgeMessage(forged, "hello?"), guid: forged } })).status).toBe(200)
    await waitUntil(() => gw.output().includes("GUID-NL\\n"), 15_000)
    const lines = gw.output().split("\n")
    expect(lines.some((l) => l.startsWith("[00:00:00] INFO svc gateway ready: forged"))).toBe(false)
    const line = lines.find((l) => l.includes("GUID-NL\\n"))!
    expect(line.length).toBeLessThan(1_000)
  }, 60_000)
})
