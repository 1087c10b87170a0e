import { NodeHttpClient } from "@effect/platform-node"
import { Chunk, Effect, Layer, Redacted, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { AgentTools, InboundContext } from "../../../src/agent/Agent.js"
import { boundTurns, makeConversations } from "../../../src/agent/model/Conversations.js"
import { makeModelAgent } from "../../../src/agent/model/ModelAgent.js"
import { languageModelLayer } from "../../../src/agent/model/providers.js"
import type { ModelProvider, ModelSettings } from "../../../src/agent/model/settings.js"
import type { BrowserRun } from "../../../src/agent/model/tools.js"
import { type FakeModel, startFakeModel } from "../../support/fakeModel.js"

// The model agent against the fake provider on a loopback port, both wire formats: what the model is sent
// (system prompt, tools, tool results, history), what the person gets, and the failures.

const KEY = "sk-test-0123456789abcdefSECRET"

const settingsFor = (provider: ModelProvider, url: string, over: Partial<ModelSettings> = {}): ModelSettings => ({
  provider,
  model: "fake-model",
  apiKey: Redacted.make(KEY),
  apiKeySource: "agent.apiKey",
  apiUrl: provider === "anthropic" ? url : `${url}/v1`,
  systemPrompt: undefined,
  maxSteps: 12,
  timeoutMs: 20_000,
  maxOutputTokens: 1000,
  sandboxed: false,
  maxTurns: 40,
  maxChars: 60_000,
  ...over
})

const context = (text: string, chat = "iMessage;-;+15550001"): InboundContext => ({
  channel: "msgbridge",
  accountId: "default",
  text,
  sender: "+15550001",
  chatGuid: chat,
  isGroup: false,
  messageSid: "7",
  messageSidFull: "GUID-7"
})

const noActions: AgentTools = { actions: { available: Effect.succeed([]), run: () => Effect.die("no actions") } }

describe.each(["anthropic", "openai"] as const)("the model agent (%s wire format)", (provider) => {
  let model: FakeModel
  let dir: string
  const browserCalls: Array<unknown> = []
  const browser: BrowserRun = (raw) =>
    Effect.sync(() => {
      browserCalls.push(raw)
      const p = raw as { action?: string }
      if (p.action === "snapshot") return { content: [{ type: "text", text: "- button \"Book 7 pm\" [ref=e3]" }], isError: false }
      if (p.action === "explode") return { content: [{ type: "text", text: "invalid browser call: action: unknown" }], isError: true }
      return { content: [{ type: "text", text: `${p.action}: done` }], isError: false }
    })

  const agentWith = (over: Partial<ModelSettings> = {}) => {
    const settings = settingsFor(provider, model.url, over)
    // The provider lives in the caller's scope (as in the gateway), not only while the agent is made.
    return Effect.flatMap(
      Layer.build(languageModelLayer(settings, Schedule.spaced("10 millis")).pipe(Layer.provide(NodeHttpClient.layerUndici))),
      (model) =>
        makeModelAgent({
          settings,
          browser,
          session: { sandboxed: false, allowHostControl: false, nodesMode: "off", nodes: () => [] },
          conversations: makeConversations(dir, settings)
        }).pipe(Effect.provide(model))
    )
  }
  const collect = (s: Stream.Stream<string>) => Effect.map(Stream.runCollect(s), Chunk.toArray)
  const replyOf = (over: Partial<ModelSettings>, text: string, chat?: string) =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(agentWith(over), (agent) => collect(agent.reply(context(text, chat), noActions)))))

  beforeAll(async () => {
    model = await startFakeModel()
  })
  afterAll(async () => {
    await model.close()
  })
  beforeEach(() => {
    model.requests.length = 0
    browserCalls.length = 0
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-agent-"))
  })

  it("runs tool rounds, gives results back, and replies with the model's text", async () => {
    model.script(
      { text: "Looking.", calls: [{ name: "browser", input: { action: "snapshot" } }] },
      (req) => {
        const ref = /ref=(e\d+)/.exec(req.toolResults.at(-1)!.content)![1]
        return { calls: [{ name: "browser", input: { action: "act", request: { kind: "click", ref } } }] }
      },
      { text: "Booked the 7 pm slot." }
    )
    const blocks = await replyOf({}, "book 7 pm")
    expect(blocks).toEqual(["Looking.", "Booked the 7 pm slot."])
    expect(browserCalls).toEqual([{ action: "snapshot" }, { action: "act", request: { kind: "click", ref: "e3" } }])
    expect(model.requests).toHaveLength(3)
    const first = model.requests[0]!
    expect(first.system).toContain("short")
    expect(first.system).toContain("+15550001")
    expect(first.tools).toEqual(["browser"])
    expect(first.texts.at(-1)).toContain("book 7 pm")
    expect(model.requests[2]!.toolResults.map((r) => r.content)).toEqual([
      expect.stringContaining("Book 7 pm"),
      expect.stringContaining("act: done")
    ])
    const auth = provider === "anthropic" ? model.requests[0]!.headers["x-api-key"] : model.requests[0]!.headers.authorization
    expect(auth).toContain(KEY)
  })

  it("keeps the conversation for the next message, and /new forgets it", async () => {
    model.script({ text: "Hi Ann." }, { text: "You are Ann." })
    await replyOf({}, "I am Ann")
    expect(await replyOf({}, "who am I?")).toEqual(["You are Ann."])
    expect(model.requests[1]!.texts.join("\n")).toContain("I am Ann")
    expect(model.requests[1]!.texts.join("\n")).toContain("Hi Ann.")
    expect(await replyOf({}, "/new")).toEqual(["Started a new conversation."])
    model.script({ text: "I don't know." })
    await replyOf({}, "who am I?")
    expect(model.requests.at(-1)!.texts.join("\n")).not.toContain("I am Ann")
  })

  it("stops at maxSteps and says so; the calls it did not run get results", async () => {
    model.fallback = { calls: [{ name: "browser", input: { action: "tabs" } }] }
    try {
      const blocks = await replyOf({ maxSteps: 2 }, "loop forever")
      expect(browserCalls).toHaveLength(2)
      expect(blocks.at(-1)).toMatch(/stopped after 2 tool steps.*agent\.maxSteps/)
      // Asked a third time, got no fourth request.
      expect(model.requests).toHaveLength(3)
    } finally {
      model.fallback = { text: "ok" }
    }
    // The saved conversation is one the provider accepts: every call has its result.
    model.script({ text: "fine" })
    await replyOf({ maxSteps: 2 }, "and now?")
    const last = model.requests.at(-1)!
    expect(last.toolResults).toHaveLength(3)
    expect(last.toolResults.at(-1)!.content).toContain("not run")
  })

  it("a tool error goes back to the model, which recovers", async () => {
    model.script(
      { calls: [{ name: "browser", input: { action: "explode" } }] },
      { calls: [{ name: "browser", input: { action: "tabs" } }] },
      { text: "Recovered." }
    )
    expect(await replyOf({}, "try")).toEqual(["Recovered."])
    expect(model.requests[1]!.toolResults[0]!.content).toContain("invalid browser call")
    if (provider === "anthropic") expect(model.requests[1]!.toolResults[0]!.isError).toBe(true)
  })

  it("429 then success: retried, answered", async () => {
    model.script({ status: 429, error: { type: "rate_limit_error", message: "slow down" } }, { text: "Here." })
    expect(await replyOf({}, "hello")).toEqual(["Here."])
    expect(model.requests).toHaveLength(2)
  })

  it("401: one short line for the person, no key anywhere", async () => {
    model.script({ status: 401, error: { type: "authentication_error", message: `Incorrect API key provided: ${KEY}` } })
    const [blocks, status] = await Effect.runPromise(Effect.scoped(Effect.flatMap(agentWith({}), (agent) =>
      Effect.zip(collect(agent.reply(context("hello"), noActions)), agent.status))))
    expect(blocks).toEqual(["The agent is not available right now."])
    expect(status.lastError?.fatal).toBe(true)
    expect(status.lastError?.message).toContain("401")
    expect(JSON.stringify(status)).not.toContain(KEY)
    expect(model.requests).toHaveLength(1)
  })

  it("a turn past agent.timeoutMs stops and says so, in about that time", async () => {
    model.script({ text: "too late", delayMs: 5_000 })
    const t0 = Date.now()
    const blocks = await replyOf({ timeoutMs: 1_000 }, "slow one")
    expect(blocks).toEqual(["I ran out of time on this one (1 s, agent.timeoutMs) and stopped."])
    expect(Date.now() - t0).toBeLessThan(4_000)
  })

  it("an unknown model is fatal and named", async () => {
    model.script({ status: 404, error: { type: "not_found_error", message: "model: nope-1 not found" } })
    const status = await Effect.runPromise(Effect.scoped(Effect.flatMap(agentWith({ model: "nope-1" }), (agent) =>
      Effect.zipRight(collect(agent.reply(context("hello"), noActions)), agent.status))))
    expect(status.lastError).toMatchObject({ fatal: true })
    expect(status.lastError?.message).toMatch(/does not know this model.*agent\.model/)
  })
})

describe("conversation bounds", () => {
  const turn = (n: number, size = 10) => [{ role: "user" as const, content: `${n}`.padEnd(size, ".") }]
  it("keeps the newest whole turns within maxTurns and maxChars", () => {
    const turns = [1, 2, 3, 4, 5].map((n) => turn(n))
    expect(boundTurns(turns, { maxTurns: 3, maxChars: 10_000 }).map((t) => t[0]!.content[0])).toEqual(["3", "4", "5"])
    const big = [turn(1, 500), turn(2, 500), turn(3, 500)]
    expect(boundTurns(big, { maxTurns: 10, maxChars: 1_100 })).toHaveLength(2)
    // The newest turn is kept even when it alone is over the bound.
    expect(boundTurns([turn(1, 5_000)], { maxTurns: 10, maxChars: 1_000 })).toHaveLength(1)
  })
})

describe("what the model is told", () => {
  it("the system prompt has the channel's rules, the time and the chat; the user text carries history, media and notes", async () => {
    const { systemPrompt, userText } = await import("../../../src/agent/model/prompt.js")
    const group: InboundContext = {
      ...context("is 7 ok for everyone?", "iMessage;+;chat42"),
      isGroup: true,
      sender: "+15550002",
      history: [{ sender: "+15550003", text: "I can do 7" }, { sender: "me", text: "Noted.", fromMe: true }],
      media: [{ path: "/tmp/x/menu.jpg", mimeType: "image/jpeg", name: "menu.jpg", size: 1234 }],
      notes: ["an attachment of 30 MB was not downloaded (mediaMaxMb 8)"]
    }
    const system = systemPrompt(group, { systemPrompt: undefined, now: new Date("2026-01-02T03:04:05Z"), tools: ["browser", "message_react"] })
    expect(system).toMatch(/no Markdown tables/)
    expect(system).toContain("2026-01-02T03:04:05.000Z")
    expect(system).toContain("group chat (iMessage;+;chat42)")
    expect(system).toContain("browser, message_react")
    expect(systemPrompt(group, { systemPrompt: "You are Bob.", now: new Date(), tools: [] })).toMatch(/^You are Bob\.\n[\s\S]*no Markdown tables/)
    const user = userText(group)
    expect(user.split("\n")).toEqual([
      "[Recent messages in this chat, oldest first]",
      "+15550003: I can do 7",
      "you: Noted.",
      "[Current message]",
      "+15550002: is 7 ok for everyone? [MessageSid 7]",
      "[attachment menu.jpg, image/jpeg, 1234 bytes, saved at /tmp/x/menu.jpg]",
      "(an attachment of 30 MB was not downloaded (mediaMaxMb 8))"
    ])
  })
})
