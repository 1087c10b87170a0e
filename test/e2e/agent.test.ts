import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, newMessageWebhook, postWebhook, startFakeBridge } from "../support/fakeBridge.js"
import { type FakeModel, type ModelRequest, startFakeModel } from "../support/fakeModel.js"
import { baseEnv, freeCdpPort, freeGatewayPort, type Gateway, makeStateDir, request, runSvc, servePages, startGateway, waitUntil } from "../support/gateway.js"

// The language-model agent through the real path: a webhook from the fake bridge reaches a real gateway,
// whose agent asks the fake model (on a loopback port, in the provider's wire format); the model's tool
// calls drive a real Chromium on a page this test serves, through the gateway's own control port; the
// reply reaches the fake bridge. Also the failures, a restart mid-turn, history and /new.

const KEY = "sk-ant-e2e-secret-key-0123456789"

const BOOKING = `<!doctype html><title>Bistro</title><h1>Bistro booking</h1><p>Open 12:00-23:00</p>
<label>Name <input id="name"></label>
<button onclick="out.textContent = 'Booked 7 pm for ' + document.querySelector('#name').value">Book 7 pm</button>
<p id="out">nothing booked</p>`

const refIn = (text: string, pattern: RegExp): string => {
  const line = text.split("\n").find((l) => pattern.test(l))
  const ref = /\[ref=([^\]]+)\]/.exec(line ?? "")?.[1]
  if (ref === undefined) throw new Error(`no ref for ${pattern} in\n${text}`)
  return ref
}
const lastResult = (r: ModelRequest) => r.toolResults.at(-1)?.content ?? ""

describe("the language-model agent in the gateway (anthropic wire format)", () => {
  let bridge: FakeBridge
  let model: FakeModel
  let pages: Awaited<ReturnType<typeof servePages>>
  let gw: Gateway
  let stateDir: string
  let hook: string
  const replies = (chat?: string) =>
    bridge.callsTo("/api/v1/message/text")
      .filter((c) => chat === undefined || (c.body as { chatGuid: string }).chatGuid === chat)
      .map((c) => (c.body as { message: string }).message)
  const send = async (guid: string, text: string, sender: string) => {
    const r = await postWebhook(hook, newMessageWebhook(guid, text, sender))
    expect(r.status).toBe(200)
  }
  const start = async () => {
    gw = await startGateway({ stateDir, env: { ANTHROPIC_API_KEY: "" } })
    hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`
  }
  const control = (method: string, p: string, body?: unknown) =>
    request(gw.controlPort, method, p, { authorization: `Bearer ${gw.token()}` }, body)

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true, os_version: "15.3.1" } })
    model = await startFakeModel()
    pages = await servePages({ "/book": BOOKING })
    stateDir = makeStateDir({
      browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } },
      channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open", allowFrom: ["*"] } },
      messages: { responsePrefix: "" },
      agent: { provider: "anthropic", model: "claude-test", apiKey: KEY, apiUrl: model.url, maxSteps: 4, timeoutMs: 60_000 }
    })
    await start()
  }, 90_000)
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
    await model?.close()
    await pages?.close()
  })

  it("snapshot → click a ref → type → the page changed, and the reply names the result", async () => {
    const chat = "iMessage;-;+15552220001"
    model.script(
      // navigate waits for the page's load (a tab just opened may still commit its first navigation, which
      // makes the refs of a snapshot taken meanwhile stale).
      { text: "On it.", calls: [{ name: "browser", input: { action: "navigate", url: pages.url("/book") } }, { name: "browser", input: { action: "snapshot" } }] },
      (req) => {
        const snap = lastResult(req)
        return {
          calls: [
            { name: "browser", input: { action: "act", request: { kind: "type", ref: refIn(snap, /textbox "Name"/), text: "Ann" } } },
            { name: "browser", input: { action: "act", request: { kind: "click", ref: refIn(snap, /button "Book 7 pm"/) } } },
            { name: "browser", input: { action: "snapshot" } }
          ]
        }
      },
      (req) => {
        const booked = /Booked 7 pm for \w+/.exec(lastResult(req))?.[0] ?? `no booking seen: ${lastResult(req)}`
        return { text: `Done: ${booked}.` }
      }
    )
    await send("AGENT-1", "book the 7 pm slot for Ann", "+15552220001")
    await waitUntil(() => replies(chat).some((m) => m.includes("Done:")), 45_000)
    // Without blockStreaming the step texts arrive as one message, once the turn is over.
    expect(replies(chat)).toEqual(["On it.\n\nDone: Booked 7 pm for Ann."])

    // The page, read back through the control API (not through the agent).
    const read = await control("POST", "/act", { kind: "evaluate", fn: "() => document.querySelector('#out').textContent" })
    expect(read.status, read.body).toBe(200)
    expect(read.json().result).toBe("Booked 7 pm for Ann")

    // What the model was sent: the system prompt with the channel's rules, the chat, the tools that are on
    // for this bridge, and the tool results.
    const first = model.requests.at(-3)!
    expect(first.headers["x-api-key"]).toBe(KEY)
    expect(first.body.model).toBe("claude-test")
    expect(first.system).toMatch(/short/)
    expect(first.system).toContain(chat)
    expect(first.tools).toEqual(expect.arrayContaining(["browser", "message_react", "send_screenshot"]))
    expect(first.texts.at(-1)).toContain("book the 7 pm slot for Ann")
    expect(model.requests.at(-2)!.toolResults.map((r) => r.content).join("\n")).toMatch(/button "Book 7 pm"/)
    // Typing was shown while the agent worked.
    expect(bridge.callsTo(`/api/v1/chat/${chat}/typing`, "POST").length).toBeGreaterThan(0)
  }, 60_000)

  it("a tool error goes back to the model, which recovers; maxSteps stops a model that never ends and says why", async () => {
    const chat = "iMessage;-;+15552220002"
    model.script(
      { calls: [{ name: "browser", input: { action: "act", request: { kind: "click", ref: "e9999" } } }] },
      (req) => ({ text: req.toolResults.at(-1)!.isError ? "That ref was stale; nothing clicked." : "no error seen" })
    )
    await send("AGENT-2", "click something", "+15552220002")
    await waitUntil(() => replies(chat).length > 0, 30_000)
    expect(replies(chat)).toEqual(["That ref was stale; nothing clicked."])

    model.fallback = { calls: [{ name: "browser", input: { action: "tabs" } }] }
    try {
      await send("AGENT-3", "list tabs forever", "+15552220002")
      await waitUntil(() => replies(chat).length > 1, 30_000)
      expect(replies(chat)[1]).toMatch(/stopped after 4 tool steps.*agent\.maxSteps 4/)
    } finally {
      model.fallback = { text: "ok" }
    }
  }, 60_000)

  it("a 429 is retried and answered", async () => {
    const chat = "iMessage;-;+15552220003"
    model.script({ status: 429, error: { type: "rate_limit_error", message: "slow down" } }, { text: "Here I am." })
    const before = model.requests.length
    await send("AGENT-4", "hello?", "+15552220003")
    await waitUntil(() => replies(chat).length > 0, 30_000)
    expect(replies(chat)).toEqual(["Here I am."])
    expect(model.requests.length - before).toBe(2)
  }, 60_000)

  it("a 401: svc status says so, the person gets one short line, the key is nowhere", async () => {
    const chat = "iMessage;-;+15552220004"
    model.script({ status: 401, error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } })
    await send("AGENT-5", "are you there?", "+15552220004")
    await waitUntil(() => replies(chat).length > 0, 30_000)
    expect(replies(chat)).toEqual(["The agent is not available right now."])
    const status = await gw.svc("status")
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/agent: anthropic claude-test/)
    expect(status.stdout).toMatch(/refused the API key \(HTTP 401\)/)
    const json = await gw.svc("status", "--json")
    expect(JSON.parse(json.stdout).agent.lastError.fatal).toBe(true)
    const config = await gw.svc("config", "get", "agent")
    expect(config.stdout).toContain("(set; not shown)")
    for (const text of [status.stdout, json.stdout, config.stdout, gw.output(), ...replies()]) expect(text).not.toContain(KEY)
    expect(gw.output()).toMatch(/agent: not available: .*HTTP 401/)
  }, 60_000)

  it("a restart in the middle of a turn: answered exactly once, and the conversation survives; /new forgets it", async () => {
    const chat = "iMessage;-;+15552220005"
    const sender = "+15552220005"
    model.script({ text: "Nice to meet you, Bo." })
    await send("AGENT-6", "my name is Bo", sender)
    await waitUntil(() => replies(chat).length === 1, 30_000)

    // The model thinks for a long time; the gateway stops meanwhile.
    model.hold()
    const asked = model.requests.length
    await send("AGENT-7", "what is my name?", sender)
    await waitUntil(() => model.held() === 1, 30_000)
    const t0 = Date.now()
    expect(await gw.stop()).toBe(0)
    // A running turn does not hold the stop up (the queue's grace, ~2 s), and did not answer.
    expect(Date.now() - t0).toBeLessThan(15_000)
    expect(replies(chat)).toHaveLength(1)
    model.release()
    model.script({ text: "Your name is Bo." })
    await start()
    await waitUntil(() => replies(chat).length >= 2, 30_000)
    // One more moment for a second answer to show up, if there were one.
    await new Promise((r) => setTimeout(r, 1_500))
    expect(replies(chat)).toEqual(["Nice to meet you, Bo.", "Your name is Bo."])
    // After the restart the model was sent the earlier turn (persisted), not only the new message.
    const afterRestart = model.requests.slice(asked).at(-1)!
    expect(afterRestart.texts.join("\n")).toContain("my name is Bo")
    expect(afterRestart.texts.join("\n")).toContain("Nice to meet you, Bo.")
    expect(fs.readdirSync(path.join(stateDir, "agent", "conversations")).length).toBeGreaterThan(0)

    await send("AGENT-8", "/new", sender)
    await waitUntil(() => replies(chat).length >= 3, 30_000)
    expect(replies(chat)[2]).toBe("Started a new conversation.")
    model.script({ text: "I don't know your name." })
    await send("AGENT-9", "what is my name?", sender)
    await waitUntil(() => replies(chat).length >= 4, 30_000)
    expect(model.requests.at(-1)!.texts.join("\n")).not.toContain("my name is Bo")
  }, 90_000)

  it("send_screenshot sends the current page to the chat", async () => {
    const chat = "iMessage;-;+15552220006"
    model.script({ calls: [{ name: "send_screenshot", input: {} }] }, (req) => ({ text: req.toolResults.at(-1)!.content.includes("sent") ? "Sent you a screenshot." : `failed: ${lastResult(req)}` }))
    await send("AGENT-10", "show me the page", "+15552220006")
    await waitUntil(() => replies(chat).length > 0, 30_000)
    expect(replies(chat)).toEqual(["Sent you a screenshot."])
    const attachment = bridge.callsTo("/api/v1/message/attachment").at(-1)!
    expect(attachment.fields?.chatGuid).toBe(chat)
    expect(attachment.files?.attachment?.size).toBeGreaterThan(1000)
  }, 60_000)
})

describe("svc agent ask", () => {
  let model: FakeModel
  let pages: Awaited<ReturnType<typeof servePages>>
  let gw: Gateway

  beforeAll(async () => {
    model = await startFakeModel()
    pages = await servePages({ "/book": BOOKING })
    gw = await startGateway({
      config: {
        browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } },
        agent: { provider: "anthropic", model: "claude-ask", apiUrl: model.url }
      },
      env: { ANTHROPIC_API_KEY: KEY }
    })
  }, 90_000)
  afterAll(async () => {
    await gw?.stop()
    await model?.close()
    await pages?.close()
  })

  it("prints each tool call (name, short arguments, duration) and the reply; --json says the same", async () => {
    model.script(
      { calls: [{ name: "browser", input: { action: "navigate", url: pages.url("/book") } }, { name: "browser", input: { action: "snapshot" } }] },
      (req) => ({ text: /Open 12:00-23:00/.test(lastResult(req)) ? "The bistro is open 12:00-23:00." : "no hours seen" })
    )
    const r = await gw.svc("agent", "ask", "what are the opening hours on the booking page?")
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split("\n")
    expect(lines[0]).toMatch(/^→ browser \{"action":"navigate","url":"http:\/\/127\.0\.0\.1:\d+\/book"\} \(\d+ ms\)$/)
    expect(lines[1]).toMatch(/^→ browser \{"action":"snapshot"\} \(\d+ ms\)$/)
    expect(lines.at(-1)).toBe("The bistro is open 12:00-23:00.")
    expect(r.stdout + r.stderr).not.toContain(KEY)
    // The model was asked with the env's key, the browser tool only, and no chat.
    const req = model.requests.at(-2)!
    expect(req.headers["x-api-key"]).toBe(KEY)
    expect(req.tools).toEqual(["browser"])

    model.script({ calls: [{ name: "browser", input: { action: "nope" } }] }, { text: "That did not work." })
    const j = await gw.svc("agent", "ask", "do something odd", "--json")
    expect(j.code, j.stderr).toBe(0)
    const result = JSON.parse(j.stdout)
    expect(result).toMatchObject({ provider: "anthropic", model: "claude-ask", reply: ["That did not work."], steps: 1 })
    expect(result.toolCalls).toEqual([expect.objectContaining({ name: "browser", isError: true })])

    // --browser-profile: the calls that name no profile use that one.
    model.script({ calls: [{ name: "browser", input: { action: "tabs" } }] }, (req) => ({ text: lastResult(req) }))
    const p = await gw.svc("agent", "ask", "list the tabs", "--browser-profile", "ghost", "--json")
    expect(p.code, p.stderr).toBe(0)
    const answer = JSON.parse(p.stdout)
    expect(answer.toolCalls).toEqual([expect.objectContaining({ name: "browser", isError: true })])
    expect(answer.reply.join("\n")).toMatch(/ghost/)
  }, 60_000)

  it("without a running gateway: one line saying to start it, non-zero exit", async () => {
    const stateDir = makeStateDir({ agent: { provider: "anthropic", apiUrl: model.url, apiKey: KEY } })
    const r = await runSvc(["agent", "ask", "hello"], { ...baseEnv(stateDir, await freeGatewayPort()) })
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toMatch(/svc gateway run/)
    expect(r.stderr).not.toContain(KEY)
  }, 30_000)
})

describe("the language-model agent in the gateway (openai wire format)", () => {
  let bridge: FakeBridge
  let model: FakeModel
  let gw: Gateway

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true, os_version: "15.3.1" } })
    model = await startFakeModel()
    gw = await startGateway({
      config: {
        browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } },
        channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open", allowFrom: ["*"], blockStreaming: true } },
        messages: { responsePrefix: "" },
        agent: { provider: "openai", model: "gpt-test", apiUrl: `${model.url}/v1` }
      },
      env: { OPENAI_API_KEY: "sk-openai-env-key-0123456789" }
    })
  }, 90_000)
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
    await model?.close()
  })

  it("a function call round trip, with the env's key", async () => {
    model.script(
      { calls: [{ name: "browser", input: { action: "status" } }] },
      (req) => ({ text: /running|profile/.test(req.toolResults.at(-1)?.content ?? "") ? "The browser answered." : "no status" })
    )
    const hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`
    expect((await postWebhook(hook, newMessageWebhook("OAI-1", "is the browser up?", "+15553330001"))).status).toBe(200)
    const replies = () => bridge.callsTo("/api/v1/message/text").map((c) => (c.body as { message: string }).message)
    await waitUntil(() => replies().length > 0, 30_000)
    expect(replies()).toEqual(["The browser answered."])
    expect(model.requests[0]!.path).toBe("/v1/responses")
    expect(model.requests[0]!.headers.authorization).toBe("Bearer sk-openai-env-key-0123456789")
    expect(model.requests[0]!.body.model).toBe("gpt-test")
    const status = JSON.parse((await gw.svc("status", "--json")).stdout)
    expect(status.agent).toMatchObject({ provider: "openai", model: "gpt-test", apiKey: "env OPENAI_API_KEY" })
  }, 60_000)

  it("with blockStreaming, each step's text reaches the chat while the agent still works", async () => {
    const hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`
    const chat = "iMessage;-;+15553330002"
    const replies = () =>
      bridge.callsTo("/api/v1/message/text").filter((c) => (c.body as { chatGuid: string }).chatGuid === chat).map((c) => (c.body as { message: string }).message)
    model.script({ text: "Checking the browser…", calls: [{ name: "browser", input: { action: "tabs" } }] }, { text: "All done.", delayMs: 3_000 })
    expect((await postWebhook(hook, newMessageWebhook("OAI-2", "check the tabs", "+15553330002"))).status).toBe(200)
    // The first block is out while the model still thinks about the second.
    await waitUntil(() => replies().length === 1, 30_000)
    expect(replies()).toEqual(["Checking the browser…"])
    await waitUntil(() => replies().length === 2, 30_000)
    expect(replies()).toEqual(["Checking the browser…", "All done."])
  }, 60_000)
})
