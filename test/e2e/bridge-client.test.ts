// The bridge client and outbound delivery against the fake bridge server on loopback.

import { NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Clock, Effect, Exit, Fiber, Layer, Stream, TestClock } from "effect"
import * as net from "node:net"
import { describe, expect } from "vitest"
import { BridgeClient, type BridgeClientOptions, makeBridgeClient } from "../../src/msgbridge/bridge/BridgeClient.js"
import type { BridgeClientApi } from "../../src/msgbridge/bridge/calls.js"
import { BridgeTimeout } from "../../src/msgbridge/bridge/errors.js"
import { deliver, markRead } from "../../src/msgbridge/channel/Outbound.js"
import { type FakeBridge, fakeBridge, type FakeBridgeOptions } from "../support/fakeBridge.js"

const DM = "iMessage;-;+15551230001"
const GROUP = "iMessage;+;chat482919384756102934"
const seededChats: FakeBridgeOptions["chats"] = [
  { guid: GROUP, style: 43, chatIdentifier: "chat482919384756102934", displayName: "Climbing crew", originalROWID: 7, participants: [{ address: "+15551230001" }, { address: "friend@example.com" }] },
  { guid: "SMS;-;+15551230001", style: 45, chatIdentifier: "+15551230001", originalROWID: 8, participants: [{ address: "+15551230001" }] },
  { guid: DM, style: 45, chatIdentifier: "+15551230001", originalROWID: 9, participants: [{ address: "+15551230001" }] },
  { guid: "iMessage;-;friend@example.com", style: 45, chatIdentifier: "friend@example.com", originalROWID: 10, participants: [{ address: "friend@example.com" }] }
]

const clientFor = (bridge: FakeBridge, extra: Partial<BridgeClientOptions> = {}) =>
  makeBridgeClient({ serverUrl: bridge.url, password: bridge.password, ...extra }).pipe(Effect.provide(NodeHttpClient.layer))

const clientLayer = (bridge: FakeBridge, extra: Partial<BridgeClientOptions> = {}) =>
  BridgeClient.layer({ serverUrl: bridge.url, password: bridge.password, ...extra }).pipe(Layer.provide(NodeHttpClient.layer))

const freePort = () =>
  Effect.promise(
    () =>
      new Promise<number>((resolve) => {
        const s = net.createServer()
        s.listen(0, "127.0.0.1", () => {
          const port = (s.address() as net.AddressInfo).port
          s.close(() => resolve(port))
        })
      })
  )

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isFailure(exit) && exit.cause._tag === "Fail") return exit.cause.error
  throw new Error(`expected a failure, got ${Exit.isSuccess(exit) ? "success" : String(exit.cause)}`)
}

const api = (p: string) => `/api/v1${p}`

describe("BridgeClient", () => {
  it.scopedLive("sends the password on the query string only and decodes the envelope", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge)
      yield* client.ping
      const info = yield* client.serverInfo
      expect(info).toMatchObject({ os_version: "15.3.1", private_api: true, helper_connected: true })
      expect(bridge.calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /api/v1/ping", "GET /api/v1/server/info"])
      for (const c of bridge.calls) {
        expect(c.passwordHeader).toBe(false)
        expect(c.query).toEqual({})
      }
    }))

  it.scopedLive("a server URL without scheme means http://", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* makeBridgeClient({ serverUrl: `127.0.0.1:${bridge.port}/`, password: bridge.password }).pipe(
        Effect.provide(NodeHttpClient.layer)
      )
      expect(client.baseUrl).toBe(`http://127.0.0.1:${bridge.port}`)
      yield* client.ping
    }))

  it.scopedLive("a wrong password fails with a message naming the setting, never the password", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge, { password: "wrong-Pa55" })
      const e = failureOf(yield* Effect.exit(client.ping))
      expect(e._tag).toBe("BridgeAuthFailed")
      expect(e.message).toContain("the bridge server refused the password (channels.msgbridge.password)")
      expect(e.message).not.toContain("wrong-Pa55")
    }))

  it.scopedLive("caches server info for its TTL", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge)
      yield* client.serverInfo
      yield* client.serverInfo
      expect(bridge.callsTo(api("/server/info"))).toHaveLength(1)
      yield* client.refreshServerInfo
      expect(bridge.callsTo(api("/server/info"))).toHaveLength(2)
    }))

  it.scopedLive("sendText: explicit method, unique tempGuid, effect and reply fields", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ serverInfo: { private_api: false, helper_connected: false } })
      const client = yield* clientFor(bridge)
      const m1 = yield* client.sendText({ chatGuid: DM, message: "hi" })
      yield* client.sendText({ chatGuid: DM, message: "again" })
      expect(m1.guid).toMatch(/^msg-/)
      const [a, b] = bridge.callsTo(api("/message/text")).map((c) => c.body as Record<string, unknown>)
      expect(a).toEqual({ chatGuid: DM, message: "hi", method: "apple-script", tempGuid: expect.any(String) })
      expect(a!.tempGuid).not.toBe(b!.tempGuid)

      // effects need the Private API: refused up front when server info says it is off
      const off = failureOf(yield* Effect.exit(client.sendText({ chatGuid: DM, message: "boom", effectId: "com.apple.MobileSMS.expressivesend.impact" })))
      expect(off._tag).toBe("BridgeNeedsPrivateApi")
      expect(off.message).toContain("Private API")

      bridge.serverInfo = { ...bridge.serverInfo, private_api: true, helper_connected: true }
      yield* client.refreshServerInfo
      yield* client.sendText({ chatGuid: DM, message: "plain" })
      yield* client.sendText({
        chatGuid: GROUP,
        message: "boom",
        effectId: "com.apple.MobileSMS.expressivesend.impact",
        subject: "Re",
        selectedMessageGuid: "ORIG-1",
        partIndex: 1
      })
      const [, , c, d] = bridge.callsTo(api("/message/text")).map((x) => x.body as Record<string, unknown>)
      expect(c!.method).toBe("private-api")
      expect(d).toEqual({
        chatGuid: GROUP,
        message: "boom",
        method: "private-api",
        tempGuid: expect.any(String),
        effectId: "com.apple.MobileSMS.expressivesend.impact",
        subject: "Re",
        selectedMessageGuid: "ORIG-1",
        partIndex: 1
      })
    }))

  it.scopedLive("sendAttachment and setGroupIcon are multipart with the documented fields", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge)
      yield* client.sendAttachment({ chatGuid: DM, name: "memo.mp3", data: new Uint8Array(1234), mimeType: "audio/mpeg", isAudioMessage: true })
      const [call] = bridge.callsTo(api("/message/attachment"))
      expect(call!.fields).toEqual({ chatGuid: DM, name: "memo.mp3", tempGuid: expect.any(String), method: "private-api", isAudioMessage: "true" })
      expect(call!.files).toEqual({ attachment: { name: "memo.mp3", size: 1234 } })

      yield* client.setGroupIcon({ chatGuid: GROUP, data: new Uint8Array(99), name: "icon.png", mimeType: "image/png" })
      const [icon] = bridge.callsTo(api(`/chat/${GROUP}/icon`), "POST")
      expect(icon!.files).toEqual({ icon: { name: "icon.png", size: 99 } })
    }))

  it.scopedLive("each action call has the documented method, path and body", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({
        chats: seededChats,
        messages: [
          { guid: "M1", text: "one", dateCreated: 1000, chats: [{ guid: DM }], attachments: [] },
          { guid: "M2", text: "two", dateCreated: 3000, chats: [{ guid: DM }], attachments: [{ guid: "A1", mimeType: "image/jpeg" }] },
          { guid: "M3", text: "three", dateCreated: 2000, chats: [{ guid: DM }], attachments: [] }
        ]
      })
      const client = yield* clientFor(bridge)
      yield* client.startTyping(DM)
      yield* client.stopTyping(DM)
      yield* client.markRead(DM)
      yield* client.react({ chatGuid: DM, selectedMessageGuid: "M1", reaction: "-love" })
      yield* client.edit({ messageGuid: "M1", editedMessage: "uno" })
      yield* client.unsend({ messageGuid: "M1" })
      yield* client.renameGroup({ chatGuid: GROUP, displayName: "Crew" })
      yield* client.addParticipant({ chatGuid: GROUP, address: "+15550000000" })
      yield* client.removeParticipant({ chatGuid: GROUP, address: "+15550000000" })
      yield* client.leaveGroup(GROUP)
      const chats = yield* client.queryChats({ limit: 2, offset: 1 })
      const chat = yield* client.newChat({ addresses: ["+15559990000"], message: "hello", service: "iMessage" })
      const byGuid = yield* client.messageByGuid("M2")
      const since = yield* client.messagesSince({ after: 1500, limit: 10 })

      const seen = bridge.calls.map((c) => ({ m: c.method, p: c.path, b: c.body, q: c.query }))
      expect(seen).toEqual([
        { m: "POST", p: api(`/chat/${DM}/typing`), b: undefined, q: {} },
        { m: "DELETE", p: api(`/chat/${DM}/typing`), b: undefined, q: {} },
        { m: "POST", p: api(`/chat/${DM}/read`), b: undefined, q: {} },
        { m: "POST", p: api("/message/react"), b: { chatGuid: DM, selectedMessageGuid: "M1", reaction: "-love", partIndex: 0 }, q: {} },
        { m: "POST", p: api("/message/M1/edit"), b: { editedMessage: "uno", backwardsCompatibilityMessage: "Edited to “uno”", partIndex: 0 }, q: {} },
        { m: "POST", p: api("/message/M1/unsend"), b: { partIndex: 0 }, q: {} },
        { m: "PUT", p: api(`/chat/${GROUP}`), b: { displayName: "Crew" }, q: {} },
        { m: "POST", p: api(`/chat/${GROUP}/participant/add`), b: { address: "+15550000000" }, q: {} },
        { m: "POST", p: api(`/chat/${GROUP}/participant/remove`), b: { address: "+15550000000" }, q: {} },
        { m: "POST", p: api(`/chat/${GROUP}/leave`), b: undefined, q: {} },
        { m: "POST", p: api("/chat/query"), b: { with: ["participants"], limit: 2, offset: 1 }, q: {} },
        { m: "GET", p: api("/server/info"), b: undefined, q: {} },
        {
          m: "POST",
          p: api("/chat/new"),
          b: { addresses: ["+15559990000"], message: "hello", tempGuid: expect.any(String), method: "private-api", service: "iMessage" },
          q: {}
        },
        { m: "GET", p: api("/message/M2"), b: undefined, q: { with: "chats,attachment" } },
        { m: "POST", p: api("/message/query"), b: { after: 1500, sort: "ASC", limit: 10, with: ["chat", "chat.participants", "attachment"] }, q: {} }
      ])
      expect(chats.map((c) => c.guid)).toEqual(["SMS;-;+15551230001", DM])
      expect(chats[1]!.participants).toEqual([{ address: "+15551230001" }])
      expect(chat.guid).toBe("iMessage;-;+15559990000")
      expect(byGuid.attachments).toEqual([{ guid: "A1", mimeType: "image/jpeg" }])
      expect(byGuid.chats).toEqual([{ guid: DM }])
      expect(since.map((m) => m.guid)).toEqual(["M3", "M2"])
    }))

  it.scopedLive("a Private-API route failing with 500 says it needs the helper; 504 and 404 are named", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ serverInfo: { helper_connected: false } })
      const client = yield* clientFor(bridge)
      const pa = failureOf(yield* Effect.exit(client.react({ chatGuid: DM, selectedMessageGuid: "M1", reaction: "like" })))
      expect(pa._tag).toBe("BridgeNeedsPrivateApi")
      expect(pa.message).toContain("needs the Private API helper")

      bridge.failNext({ path: api("/ping"), status: 504 })
      const gw = failureOf(yield* Effect.exit(client.ping))
      expect(gw).toMatchObject({ _tag: "BridgeHttpError", status: 504 })
      expect(gw.message).toContain("504")

      const nf = failureOf(yield* Effect.exit(client.messageByGuid("nope")))
      expect(nf).toMatchObject({ _tag: "BridgeHttpError", status: 404 })
      expect(nf.message).toContain("Message does not exist")
    }))

  it.scopedLive("a call that hangs times out with a tagged error", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge, { timeoutMs: 300, sendTimeoutMs: 500 })
      bridge.failNext({ path: api("/ping"), hang: true })
      const started = Date.now()
      const e = failureOf(yield* Effect.exit(client.ping))
      expect(e).toMatchObject({ _tag: "BridgeTimeout", timeoutMs: 300 })
      expect(Date.now() - started).toBeLessThan(2000)

      bridge.failNext({ path: api("/message/text"), hang: true })
      const s = failureOf(yield* Effect.exit(client.sendText({ chatGuid: DM, message: "x", method: "apple-script" })))
      expect(s).toMatchObject({ _tag: "BridgeTimeout", timeoutMs: 500 })
    }))

  it.live("connection refused says no bridge server answers, without the password", () =>
    Effect.gen(function*() {
      const port = yield* freePort()
      const client = yield* makeBridgeClient({ serverUrl: `127.0.0.1:${port}`, password: "hunter2" }).pipe(Effect.provide(NodeHttpClient.layer))
      const e = failureOf(yield* Effect.exit(client.ping))
      expect(e._tag).toBe("BridgeUnreachable")
      expect(e.message).toContain(`no bridge server answers at http://127.0.0.1:${port}`)
      expect(e.message).not.toContain("hunter2")
    }))

  it.scopedLive("downloads an attachment under the cap as a stream", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ attachments: { A1: 200_000 } })
      const client = yield* clientFor(bridge)
      const bytes = yield* client.downloadAttachmentBytes("A1", 1_000_000)
      expect(bytes.length).toBe(200_000)
    }))

  it.scopedLive("a download over the cap fails early and is aborted (declared length and streamed)", () =>
    Effect.gen(function*() {
      const size = 64 * 1024 * 1024
      const bridge = yield* fakeBridge({ attachments: { BIG: size, BIG2: size } })
      const client = yield* clientFor(bridge)
      const e1 = failureOf(yield* Effect.exit(client.downloadAttachmentBytes("BIG", 1_000_000)))
      expect(e1._tag).toBe("BridgeTooLarge")
      expect(e1.message).toContain("mediaMaxMb")

      bridge.downloadContentLength = false
      const chunks = yield* Effect.exit(Stream.runCollect(client.downloadAttachment("BIG2", 1_000_000)))
      expect(failureOf(chunks)._tag).toBe("BridgeTooLarge")
      yield* Effect.sleep("200 millis")
      for (const d of bridge.downloads) {
        expect(d.finished).toBe(false)
        expect(d.bytesWritten).toBeLessThan(size / 4)
      }
      expect(bridge.downloads.find((d) => d.guid === "BIG2")!.aborted).toBe(true)
    }))
})

describe("Outbound.deliver", () => {
  it.scopedLive("starts typing before sending, then sends chunks in order", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      const text = Array.from({ length: 12 }, (_, i) => `sentence number ${i} is here.`).join(" ")
      const result = yield* deliver({ target: `chat_guid:${DM}`, blocks: [text], textChunkLimit: 60, responsePrefix: "[svc] " }).pipe(
        Effect.provide(clientLayer(bridge))
      )
      const sends = bridge.callsTo(api("/message/text"))
      expect(sends.length).toBeGreaterThan(3)
      expect(result.sent).toBe(sends.length)
      expect(result.messageGuids).toHaveLength(sends.length)
      const typingIdx = bridge.calls.findIndex((c) => c.path === api(`/chat/${DM}/typing`) && c.method === "POST")
      const firstSend = bridge.calls.findIndex((c) => c.path === api("/message/text"))
      expect(typingIdx).toBeGreaterThanOrEqual(0)
      expect(typingIdx).toBeLessThan(firstSend)
      const texts = sends.map((c) => (c.body as { message: string }).message)
      for (const t of texts) expect(t.length).toBeLessThanOrEqual(60)
      expect(texts[0]!.startsWith("[svc] ")).toBe(true)
      expect(texts.slice(1).every((t) => !t.includes("[svc]"))).toBe(true)
      expect(texts.join(" ").replace(/\s+/g, " ")).toBe("[svc] " + text)
    }))

  it.scopedLive("keeps typing alive while blocks are pending and streams blocks as they arrive", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      const blocks = Stream.make("first block", "second block", "third block").pipe(
        Stream.tap(() => Effect.sleep("150 millis"))
      )
      yield* deliver({ target: `chat_guid:${GROUP}`, blocks, blockStreaming: true, typingIntervalMs: 40 }).pipe(
        Effect.provide(clientLayer(bridge))
      )
      const sends = bridge.callsTo(api("/message/text")).map((c) => (c.body as { message: string }).message)
      expect(sends).toEqual(["first block", "second block", "third block"])
      const typing = bridge.callsTo(api(`/chat/${GROUP}/typing`), "POST")
      expect(typing.length).toBeGreaterThan(3)
      // streamed: the first block went out before the last one was produced
      const firstSendAt = bridge.callsTo(api("/message/text"))[0]!.at
      const lastSendAt = bridge.callsTo(api("/message/text"))[2]!.at
      expect(lastSendAt - firstSendAt).toBeGreaterThan(200)
    }))

  it.scopedLive("without blockStreaming, joins the blocks and sends at the end", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      yield* deliver({ target: `chat_guid:${DM}`, blocks: Stream.make("one", "two") }).pipe(Effect.provide(clientLayer(bridge)))
      expect(bridge.callsTo(api("/message/text")).map((c) => (c.body as { message: string }).message)).toEqual(["one\n\ntwo"])
    }))

  it.scopedLive("retries a transient failure with backoff, then succeeds", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      bridge.failNext({ path: api("/message/text"), status: 503, times: 2 })
      const result = yield* deliver({ target: `chat_guid:${DM}`, blocks: ["hello"], retry: { retries: 3, baseDelayMs: 50 } }).pipe(
        Effect.provide(clientLayer(bridge))
      )
      const sends = bridge.callsTo(api("/message/text"))
      expect(sends).toHaveLength(3)
      expect(result.sent).toBe(1)
      // exponential: the second gap is about twice the first
      const gap1 = sends[1]!.at - sends[0]!.at
      const gap2 = sends[2]!.at - sends[1]!.at
      expect(gap1).toBeGreaterThanOrEqual(45)
      expect(gap2).toBeGreaterThanOrEqual(95)
    }))

  it.scopedLive("reports a send that keeps failing after its retries, and does not retry a 400", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      bridge.failNext({ path: api("/message/text"), status: 504, times: 10 })
      const e = failureOf(
        yield* Effect.exit(
          deliver({ target: `chat_guid:${DM}`, blocks: ["hello"], retry: { retries: 3, baseDelayMs: 10 } }).pipe(Effect.provide(clientLayer(bridge)))
        )
      )
      expect(e).toMatchObject({ _tag: "OutboundDeliveryFailed", attempts: 4, sent: 0, chatGuid: DM })
      expect(bridge.callsTo(api("/message/text"))).toHaveLength(4)

      const bridge2 = yield* fakeBridge({ chats: seededChats })
      bridge2.failNext({ path: api("/message/text"), status: 400, times: 10 })
      const e2 = failureOf(
        yield* Effect.exit(
          deliver({ target: `chat_guid:${DM}`, blocks: ["hello"], retry: { retries: 3, baseDelayMs: 10 } }).pipe(Effect.provide(clientLayer(bridge2)))
        )
      )
      expect(e2).toMatchObject({ _tag: "OutboundDeliveryFailed", attempts: 1 })
    }))

  it.scopedLive("resolves handles, chat_identifier and chat_id to existing chats (iMessage before SMS)", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      const send = (target: string) => deliver({ target, blocks: ["x"], typing: false }).pipe(Effect.provide(clientLayer(bridge)))
      expect((yield* send("+1 (555) 123-0001")).chatGuid).toBe(DM)
      expect((yield* send("Friend@Example.com")).chatGuid).toBe("iMessage;-;friend@example.com")
      expect((yield* send("chat_identifier:chat482919384756102934")).chatGuid).toBe(GROUP)
      expect((yield* send("chat_id:8")).chatGuid).toBe("SMS;-;+15551230001")
      const bad = failureOf(yield* Effect.exit(send("nobody")))
      expect(bad._tag).toBe("OutboundTargetError")
      expect(bridge.callsTo(api("/chat/new"))).toHaveLength(0)
    }))

  it.scopedLive("creates a DM chat with chat/new when none exists (first chunk travels with it)", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      const result = yield* deliver({ target: "+15557654321", blocks: ["aaaa bbbb cccc"], textChunkLimit: 8 }).pipe(
        Effect.provide(clientLayer(bridge))
      )
      expect(result.chatGuid).toBe("iMessage;-;+15557654321")
      const [created] = bridge.callsTo(api("/chat/new"))
      expect(created!.body).toMatchObject({ addresses: ["+15557654321"], message: "aaaa", method: "private-api" })
      expect(bridge.callsTo(api("/message/text")).map((c) => c.body)).toMatchObject([
        { chatGuid: "iMessage;-;+15557654321", message: "bbbb" },
        { chatGuid: "iMessage;-;+15557654321", message: "cccc" }
      ])
    }))

  it.scopedLive("says clearly that a new chat needs the Private API when it is off", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats, serverInfo: { private_api: false, helper_connected: false } })
      const e = failureOf(yield* Effect.exit(deliver({ target: "+15557654321", blocks: ["hi"] }).pipe(Effect.provide(clientLayer(bridge)))))
      expect(e._tag).toBe("OutboundTargetError")
      expect(e.message).toContain("needs the Private API")
      expect(e.message).toContain("off")
      expect(bridge.callsTo(api("/chat/new"))).toHaveLength(0)
      expect(bridge.callsTo(api("/message/text"))).toHaveLength(0)
    }))

  it.scopedLive("markRead sends a read receipt only when sendReadReceipts is on", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      yield* markRead(DM, { sendReadReceipts: false }).pipe(Effect.provide(clientLayer(bridge)))
      expect(bridge.callsTo(api(`/chat/${DM}/read`))).toHaveLength(0)
      yield* markRead(DM).pipe(Effect.provide(clientLayer(bridge)))
      expect(bridge.callsTo(api(`/chat/${DM}/read`), "POST")).toHaveLength(1)
    }))

  it.scopedLive("a failing block stream stops typing and propagates the error", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats: seededChats })
      const blocks = Stream.concat(Stream.make("partial"), Stream.fail("agent crashed" as const))
      const exit = yield* Effect.exit(deliver({ target: `chat_guid:${DM}`, blocks }).pipe(Effect.provide(clientLayer(bridge))))
      expect(failureOf(exit)).toBe("agent crashed")
      expect(bridge.callsTo(api("/message/text"))).toHaveLength(0)
      expect(bridge.callsTo(api(`/chat/${DM}/typing`), "DELETE")).toHaveLength(1)
    }))
})

describe("Outbound.deliver retry schedule (fake client layer, TestClock)", () => {
  it.effect("backs off 500 ms, 1 s, 2 s between attempts, on the TestClock", () =>
    Effect.gen(function*() {
      const attemptsAt: Array<number> = []
      const stub = {
        serverInfo: Effect.succeed({ os_version: "15.3.1", private_api: false, helper_connected: false }),
        sendText: () =>
          Effect.gen(function*() {
            attemptsAt.push(yield* Clock.currentTimeMillis)
            return attemptsAt.length < 4
              ? yield* new BridgeTimeout({ route: "POST /message/text", timeoutMs: 1, message: "slow" })
              : { guid: "G" }
          })
      } as unknown as BridgeClientApi
      const fiber = yield* Effect.fork(
        deliver({ target: `chat_guid:${DM}`, blocks: ["hi"] }).pipe(Effect.provide(Layer.succeed(BridgeClient, stub)))
      )
      yield* TestClock.adjust("4 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.messageGuids).toEqual(["G"])
      expect(attemptsAt).toEqual([0, 500, 1500, 3500])
    }))
})
