// The channel of one account, in process: webhook payloads of the real shape in, what the real fake bridge
// server (loopback) receives out, with an agent that records the context it was given.

import { NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Effect, Either, Layer, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { Agent, type AgentTools, type InboundContext } from "../../../src/agent/Agent.js"
import { makeStatePaths } from "../../../src/config/StatePaths.js"
import type { SvcConfig } from "../../../src/config/SvcConfig.js"
import { resolveAccounts } from "../../../src/msgbridge/channel/Accounts.js"
import { makeChannel } from "../../../src/msgbridge/channel/Channel.js"
import { renderGatewayStatus } from "../../../src/cli/commands/status.js"
import { fakeBridge, type FakeBridgeOptions } from "../../support/fakeBridge.js"
import { waitUntil } from "../../support/gateway.js"

const ALICE = "+15551230001"
const BOB = "+15559870002"
const DM = `iMessage;-;${ALICE}`
const GROUP = "iMessage;+;chat482919384756102934"

let counter = 0
const msg = (text: string, options: { sender?: string; group?: boolean; extra?: Record<string, unknown> } = {}) => {
  const sender = options.sender ?? ALICE
  const chat = options.group === true
    ? { guid: GROUP, style: 43, chatIdentifier: "chat482919384756102934", displayName: "Crew" }
    : { guid: `iMessage;-;${sender}`, style: 45, chatIdentifier: sender, displayName: "" }
  return {
    type: "new-message",
    data: {
      guid: `G-${++counter}`,
      text,
      handle: { address: sender, service: "iMessage" },
      isFromMe: false,
      attachments: [],
      dateCreated: Date.now(),
      chats: [chat],
      ...options.extra
    }
  }
}

type Reply = (context: InboundContext, tools: AgentTools) => Stream.Stream<string>

const harness = (
  msgbridge: Record<string, unknown>,
  options: { reply?: Reply; bridge?: FakeBridgeOptions; config?: Partial<SvcConfig> } = {}
) =>
  Effect.gen(function*() {
    const bridge = yield* fakeBridge({ serverInfo: { private_api: true, helper_connected: true }, ...options.bridge })
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-channel-"))
    const config = {
      ...options.config,
      channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, ...msgbridge } }
    } as SvcConfig
    const accounts = resolveAccounts(config)
    if (Either.isLeft(accounts)) throw new Error(accounts.left.message)
    const contexts: Array<InboundContext> = []
    const reply: Reply = options.reply ?? ((c) => Stream.make(`echo: ${c.text}`))
    const agent = Layer.succeed(Agent, {
      reply: (context, tools) => {
        contexts.push(context)
        return reply(context, tools)
      }
    })
    const channel = yield* makeChannel(config, makeStatePaths(stateDir), accounts.right[0]!).pipe(
      Effect.provide(Layer.merge(NodeHttpClient.layer, agent))
    )
    const texts = () => bridge.callsTo("/api/v1/message/text").map((c) => c.body as { chatGuid: string; message: string })
    const post = (payload: unknown) =>
      Effect.map(channel.handleWebhook(payload), (a) => {
        expect(a.status).toBe(200)
        return a
      })
    /** Wait until `check` holds (the channel answers on its own fibers). */
    const until = (check: () => boolean, ms = 5000) => Effect.promise(() => waitUntil(check, ms))
    const settle = Effect.promise(() => new Promise((r) => setTimeout(r, 150)))
    return { bridge, channel, contexts, texts, post, until, settle }
  })

describe("msgbridge channel (in process, real fake bridge)", () => {
  it.scopedLive("allowlist: only allowFrom is answered, with a read receipt and typing first", () =>
    Effect.gen(function*() {
      const h = yield* harness({ dmPolicy: "allowlist", allowFrom: ["+1 (555) 123-0001"] })
      yield* h.post(msg("from a stranger", { sender: BOB }))
      yield* h.post(msg("hello"))
      yield* h.until(() => h.texts().length === 1)
      yield* h.settle
      expect(h.texts()).toEqual([expect.objectContaining({ chatGuid: DM, message: "echo: hello" })])
      const order = h.bridge.calls.map((c) => `${c.method} ${c.path}`)
      const read = order.indexOf(`POST /api/v1/chat/${DM}/read`)
      const typing = order.indexOf(`POST /api/v1/chat/${DM}/typing`)
      const send = order.indexOf("POST /api/v1/message/text")
      expect(read).toBeGreaterThanOrEqual(0)
      expect(typing).toBeGreaterThanOrEqual(0)
      expect(typing).toBeLessThan(send)
      expect(h.bridge.calls.some((c) => c.path.includes(BOB))).toBe(false)
    }))

  it.scopedLive("sendReadReceipts=false sends none", () =>
    Effect.gen(function*() {
      const h = yield* harness({ dmPolicy: "open", sendReadReceipts: false })
      yield* h.post(msg("hi"))
      yield* h.until(() => h.texts().length === 1)
      expect(h.bridge.calls.some((c) => c.path.endsWith("/read"))).toBe(false)
    }))

  it.scopedLive("group mention gating: unmentioned chatter is not answered but travels as history", () =>
    Effect.gen(function*() {
      const h = yield* harness(
        { groupPolicy: "open", groups: { "*": { requireMention: true } }, historyLimit: 5 },
        { config: { messages: { groupChat: { mentionPatterns: ["@bot\\b"] } } } }
      )
      yield* h.post(msg("who's in for climbing at 7?", { group: true, sender: BOB }))
      yield* h.post(msg("me!", { group: true }))
      yield* h.settle
      expect(h.texts()).toHaveLength(0)
      yield* h.post(msg("@bot book the wall", { group: true }))
      yield* h.until(() => h.texts().length === 1)
      expect(h.texts()[0]).toMatchObject({ chatGuid: GROUP, message: "echo: @bot book the wall" })
      expect(h.contexts[0]!.history).toEqual([
        { sender: BOB, text: "who's in for climbing at 7?", fromMe: false },
        { sender: ALICE, text: "me!", fromMe: false }
      ])
      // The reply joins the history too.
      yield* h.post(msg("@bot and tomorrow?", { group: true }))
      yield* h.until(() => h.texts().length === 2)
      expect(h.contexts[1]!.history!.at(-1)).toMatchObject({ fromMe: true, text: "echo: @bot book the wall" })
    }))

  it.scopedLive("command gating: a stranger's /command is ignored; an allowFrom sender's bypasses mention gating", () =>
    Effect.gen(function*() {
      const h = yield* harness(
        { groupPolicy: "open", allowFrom: [ALICE], groups: { "*": { requireMention: true } } },
        { config: { messages: { groupChat: { mentionPatterns: ["@bot"] } } } }
      )
      yield* h.post(msg("/model gpt", { group: true, sender: BOB }))
      yield* h.post(msg("/model gpt", { group: true }))
      yield* h.until(() => h.texts().length === 1)
      yield* h.settle
      expect(h.contexts.map((c) => c.sender)).toEqual([ALICE])
    }))

  it.scopedLive("chunking, length mode: split at a space inside the limit, never inside a code fence unclosed", () =>
    Effect.gen(function*() {
      const long = "word ".repeat(30).trim() + "\n```\n" + "x = 1\n".repeat(8) + "```"
      const h = yield* harness({ dmPolicy: "open", textChunkLimit: 40 }, { reply: () => Stream.make(long) })
      yield* h.post(msg("go"))
      yield* h.until(() => h.texts().length > 2)
      yield* h.settle
      const chunks = h.texts().map((t) => t.message)
      expect(chunks.every((c) => c.length <= 40)).toBe(true)
      expect(chunks.every((c) => (c.match(/```/g) ?? []).length % 2 === 0)).toBe(true)
      expect(chunks[0]!.endsWith("word")).toBe(true)
    }))

  it.scopedLive("chunking, newline mode: split between paragraphs when over the limit; responsePrefix on the first chunk", () =>
    Effect.gen(function*() {
      const h = yield* harness(
        { dmPolicy: "open", chunkMode: "newline", textChunkLimit: 25 },
        { reply: () => Stream.make("first paragraph\n\nsecond paragraph"), config: { messages: { responsePrefix: "[bot] " } } }
      )
      yield* h.post(msg("go"))
      yield* h.until(() => h.texts().length === 2)
      expect(h.texts().map((t) => t.message)).toEqual(["[bot] first paragraph", "second paragraph"])
    }))

  it.scopedLive("blockStreaming sends each block as it arrives", () =>
    Effect.gen(function*() {
      const h = yield* harness({ dmPolicy: "open", blockStreaming: true }, { reply: () => Stream.make("one", "two", "three") })
      yield* h.post(msg("go"))
      yield* h.until(() => h.texts().length === 3)
      expect(h.texts().map((t) => t.message)).toEqual(["one", "two", "three"])
    }))

  it.scopedLive("short ids in the context; {{MessageSid}}, {{MessageSidFull}}, {{ReplyToIdFull}} expand in the reply", () =>
    Effect.gen(function*() {
      const h = yield* harness(
        { dmPolicy: "open" },
        { reply: () => Stream.make("re {{MessageSid}} = {{MessageSidFull}}, replying to {{ReplyToId}} = {{ReplyToIdFull}}; {{Unknown}} stays") }
      )
      const payload = msg("threaded", { extra: { threadOriginatorGuid: "ORIGIN-GUID" } })
      yield* h.post(payload)
      yield* h.until(() => h.texts().length === 1)
      const c = h.contexts[0]!
      expect(c.messageSid).toMatch(/^\d+$/)
      expect(c.messageSidFull).toBe(payload.data.guid)
      expect(c.replyToIdFull).toBe("ORIGIN-GUID")
      expect(h.texts()[0]!.message).toBe(
        `re ${c.messageSid} = ${payload.data.guid}, replying to ${c.replyToId} = ORIGIN-GUID; {{Unknown}} stays`
      )
    }))

  it.scopedLive("a sticker is media, not a tapback; a tapback is a system line with the target's short id", () =>
    Effect.gen(function*() {
      const h = yield* harness({ dmPolicy: "open" }, { bridge: { attachments: { "st-1": 512 } } })
      const original = msg("see you at 7")
      yield* h.post(original)
      yield* h.until(() => h.contexts.length === 1)
      yield* h.post(msg("Loved “see you at 7”", { extra: { associatedMessageGuid: `p:0/${original.data.guid}`, associatedMessageType: "love" } }))
      yield* h.until(() => h.contexts.length === 2)
      expect(h.contexts[1]!.system).toBe(`${ALICE} reacted with love to message ${h.contexts[0]!.messageSid}`)
      yield* h.post(msg("\ufffc", {
        extra: {
          associatedMessageGuid: `p:0/${original.data.guid}`,
          associatedMessageType: "sticker",
          attachments: [{ guid: "st-1", mimeType: "image/png", transferName: "sticker.png", totalBytes: 512 }]
        }
      }))
      yield* h.until(() => h.contexts.length === 3)
      expect(h.contexts[2]!.system).toBeUndefined()
      expect(h.contexts[2]!.media).toEqual([expect.objectContaining({ name: "sticker.png", size: 512 })])
      expect(fs.statSync(h.contexts[2]!.media![0]!.path).size).toBe(512)
    }))

  it.scopedLive("the agent's actions default to the current chat and expand placeholders", () =>
    Effect.gen(function*() {
      const h = yield* harness({ dmPolicy: "open" }, {
        reply: (_, tools) =>
          Stream.fromEffect(
            tools.actions.run("sendWithEffect", { text: "boom {{MessageSid}}", effectId: "slam" }).pipe(
              Effect.as("sent with effect"),
              Effect.catchAll((e) => Effect.succeed(`failed: ${e.message}`))
            )
          )
      })
      yield* h.post(msg("celebrate"))
      yield* h.until(() => h.texts().length === 2)
      const [effect, reply] = h.texts() as Array<{ chatGuid: string; message: string; effectId?: string }>
      expect(effect).toMatchObject({ chatGuid: DM, effectId: "com.apple.MobileSMS.expressivesend.impact" })
      expect(effect!.message).toBe(`boom ${h.contexts[0]!.messageSid}`)
      expect(reply!.message).toBe("sent with effect")
    }))

  it.scopedLive("a send that keeps failing is retried, then reported in the status (and by svc status)", () =>
    Effect.gen(function*() {
      const h = yield* harness({ dmPolicy: "open" })
      h.bridge.failNext({ path: "/api/v1/message/text", status: 500, times: 10 })
      const payload = msg("will fail")
      yield* h.post(payload)
      const status = () => Effect.runSync(h.channel.status)
      yield* h.until(() => status().failures.length === 1, 10_000)
      expect(h.bridge.callsTo("/api/v1/message/text")).toHaveLength(4)
      const failure = status().failures[0]!
      expect(failure.guid).toBe(payload.data.guid)
      expect(failure.message).toMatch(/after 4 attempts/)
      const rendered = renderGatewayStatus({
        gateway: { version: "0.1.0", pid: 1, uptimeMs: 5000, ports: { gateway: 1, control: 3 } },
        browser: { defaultProfile: "svc", running: [] },
        channels: { msgbridge: { accounts: [status()] } },
        deep: false
      }, false)
      expect(rendered).toContain("delivery failures: 1")
      expect(rendered).toContain(`${payload.data.guid}: could not deliver`)
      expect(rendered).not.toContain(h.bridge.password)
    }), 20_000)
})
