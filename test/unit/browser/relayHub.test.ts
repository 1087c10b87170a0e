import { describe, expect, it } from "vitest"
import { type Peer, RelayHub } from "../../../src/browser/relay/RelayHub.js"

// The relay's target bookkeeping with a fake extension socket and fake CDP clients: what each side is sent.

const peer = () => {
  const sent: Array<any> = []
  const closed: Array<{ code: number; reason: string }> = []
  const p: Peer = { send: (m) => void sent.push(JSON.parse(JSON.stringify(m))), close: (code, reason) => void closed.push({ code, reason }) }
  return { peer: p, sent, closed }
}

const tab = (over: Partial<{ tabId: number; targetId: string; epoch: string; attached: boolean; url: string }> = {}) => ({
  tabId: 7,
  targetId: "T7",
  url: "http://a.test/",
  title: "A",
  browserContextId: "CTX",
  attached: true,
  epoch: "e1",
  ...over
})

const flush = () => new Promise((r) => setTimeout(r, 0))

const setup = async () => {
  const hub = new RelayHub({ attachWaitMs: 200, graceMs: 50 })
  const ext = peer()
  hub.connectExtension(ext.peer)
  hub.extensionMessage(ext.peer, JSON.stringify({ type: "hello", version: "1", product: "Chrome/1", userAgent: "UA", tabs: [tab()] }))
  const cdp = peer()
  const client = hub.connectClient(cdp.peer)!
  const call = async (id: number, method: string, params: object = {}, sessionId?: string) => {
    hub.clientMessage(client, JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }))
    await flush()
  }
  /** The extension answers its latest request. */
  const answer = async (result: unknown) => {
    const req = ext.sent.filter((m) => m.id !== undefined).at(-1)
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "result", id: req.id, result }))
    await flush()
    return req
  }
  return { hub, ext, cdp, client, call, answer }
}

describe("relay target bookkeeping", () => {
  it("tells the extension when the first client comes and the last one goes (so it detaches)", async () => {
    const { hub, ext, client } = await setup()
    expect(ext.sent.filter((m) => m.type === "clients")).toEqual([{ type: "clients", count: 0 }, { type: "clients", count: 1 }])
    hub.clientClosed(client)
    expect(ext.sent.at(-1)).toEqual({ type: "clients", count: 0 })
  })

  it("auto-attach announces each shared tab with a session id and browserContextId, and routes commands and events", async () => {
    const { ext, cdp, call, answer, hub } = await setup()
    await call(1, "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true })
    const attached = cdp.sent.find((m) => m.method === "Target.attachedToTarget")
    expect(attached.params.targetInfo).toMatchObject({ targetId: "T7", type: "page", browserContextId: "CTX" })
    const sessionId = attached.params.sessionId as string
    expect(cdp.sent.find((m) => m.id === 1)).toEqual({ id: 1, result: {} })

    await call(2, "Runtime.evaluate", { expression: "1" }, sessionId)
    const req = await answer({ result: { value: 1 } })
    expect(req).toMatchObject({ type: "command", tabId: 7, method: "Runtime.evaluate", params: { expression: "1" } })
    expect(req.sessionId).toBeUndefined()
    expect(cdp.sent.find((m) => m.id === 2)).toEqual({ id: 2, result: { result: { value: 1 } }, sessionId })

    // Events of a domain the session enabled reach it; of others, not.
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "event", tabId: 7, method: "Page.loadEventFired", params: { timestamp: 1 } }))
    expect(cdp.sent.some((m) => m.method === "Page.loadEventFired")).toBe(false)
    await call(9, "Page.enable", {}, sessionId)
    await answer({})
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "event", tabId: 7, method: "Page.loadEventFired", params: { timestamp: 1 } }))
    expect(cdp.sent.at(-1)).toEqual({ method: "Page.loadEventFired", params: { timestamp: 1 }, sessionId })

    // A child session (an iframe) keeps the browser's id; its commands go to the tab with it.
    hub.extensionMessage(ext.peer, JSON.stringify({
      type: "event",
      tabId: 7,
      method: "Target.attachedToTarget",
      params: { sessionId: "CHILD", targetInfo: { targetId: "F1", type: "iframe" } }
    }))
    expect(cdp.sent.at(-1)).toMatchObject({ method: "Target.attachedToTarget", sessionId, params: { sessionId: "CHILD" } })
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "event", tabId: 7, sessionId: "CHILD", method: "Runtime.consoleAPICalled", params: {} }))
    expect(cdp.sent.at(-1)).toEqual({ method: "Runtime.consoleAPICalled", params: {}, sessionId: "CHILD" })
    await call(3, "Runtime.evaluate", { expression: "2" }, "CHILD")
    expect(await answer({})).toMatchObject({ type: "command", tabId: 7, sessionId: "CHILD" })
    expect(cdp.sent.find((m) => m.id === 3)).toEqual({ id: 3, result: {}, sessionId: "CHILD" })
  })

  it("answers what the extension's debugger may not: browser version, targets, a page session's Target.getTargets", async () => {
    const { ext, cdp, call } = await setup()
    await call(1, "Browser.getVersion")
    expect(cdp.sent.at(-1).result).toMatchObject({ product: "Chrome/1", userAgent: "UA" })
    await call(2, "Target.attachToTarget", { targetId: "T7", flatten: true })
    const sessionId = cdp.sent.at(-1).result.sessionId
    const before = ext.sent.length
    await call(3, "Target.getTargets", {}, sessionId)
    expect(cdp.sent.at(-1)).toMatchObject({ id: 3, sessionId, result: { targetInfos: [{ targetId: "T7" }] } })
    expect(ext.sent.length).toBe(before)
    await call(4, "Target.attachToTarget", { targetId: "nope", flatten: true })
    expect(cdp.sent.at(-1).error.message).toMatch(/not a tab shared with svc/)
    await call(5, "Target.createBrowserContext")
    expect(cdp.sent.at(-1).error.message).toMatch(/cannot make a new browser context/)
    await call(6, "Browser.close")
    expect(cdp.sent.at(-1)).toEqual({ id: 6, result: {} })
  })

  it("a new debugger attachment (epoch) ends the old session and announces a new one; never the same target twice", async () => {
    const { ext, cdp, call, hub } = await setup()
    await call(1, "Target.setAutoAttach", { autoAttach: true, flatten: true })
    const first = cdp.sent.find((m) => m.method === "Target.attachedToTarget").params.sessionId
    // The same attachment again (a title change, a second hello): nothing new for the client.
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "tab", tab: tab({ url: "http://a.test/2" }) }))
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "hello", version: "1", product: "Chrome/1", userAgent: "UA", tabs: [tab()] }))
    expect(cdp.sent.filter((m) => m.method === "Target.attachedToTarget")).toHaveLength(1)
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "tab", tab: tab({ epoch: "e2" }) }))
    const events = cdp.sent.filter((m) => m.method?.startsWith("Target."))
    expect(events.map((m) => m.method)).toEqual(["Target.attachedToTarget", "Target.detachedFromTarget", "Target.attachedToTarget"])
    expect(events[1].params).toEqual({ sessionId: first, targetId: "T7" })
    expect(events[2].params.sessionId).not.toBe(first)
  })

  it("a tab the user stops sharing is detached (with its targetId) and refused afterwards", async () => {
    const { ext, cdp, call, hub } = await setup()
    await call(1, "Target.setAutoAttach", { autoAttach: true, flatten: true })
    const sessionId = cdp.sent.find((m) => m.method === "Target.attachedToTarget").params.sessionId
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "tabGone", tabId: 7, reason: "the user stopped sharing it" }))
    expect(cdp.sent.at(-1)).toEqual({ method: "Target.detachedFromTarget", params: { sessionId, targetId: "T7" } })
    await call(2, "Runtime.evaluate", {}, sessionId)
    expect(cdp.sent.at(-1).error.message).toMatch(/Session with given id not found/)
    expect(hub.targetInfos()).toEqual([])
  })

  it("holds a command while the tab re-attaches, and a newer extension connection replaces the older one", async () => {
    const { ext, cdp, call, hub } = await setup()
    await call(1, "Target.attachToTarget", { targetId: "T7", flatten: true })
    const sessionId = cdp.sent.at(-1).result.sessionId
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "tab", tab: tab({ attached: false }) }))
    await call(2, "DOM.getDocument", {}, sessionId)
    expect(ext.sent.some((m) => m.method === "DOM.getDocument")).toBe(false)
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "tab", tab: tab() }))
    await flush()
    expect(ext.sent.at(-1)).toMatchObject({ type: "command", method: "DOM.getDocument" })

    const newer = peer()
    hub.connectExtension(newer.peer)
    expect(ext.closed).toEqual([{ code: 4000, reason: expect.stringMatching(/newer connection/) }])
    expect(newer.sent).toEqual([{ type: "clients", count: 1 }])
    // The older one's frames no longer count.
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "tabGone", tabId: 7 }))
    expect(hub.targetInfos()).toHaveLength(1)
  })

  it("a worker that comes back unattached ends the old sessions at once; the next attachment gets a new one", async () => {
    const lines: Array<string> = []
    const hub = new RelayHub({ attachWaitMs: 5_000, graceMs: 5_000, log: (l) => void lines.push(l) })
    const ext = peer()
    hub.connectExtension(ext.peer)
    expect(lines).toEqual([])
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "hello", version: "1", product: "Chrome/1", userAgent: "UA", tabs: [tab()] }))
    expect(lines).toEqual(["relay: the extension connected, sharing 1 tab(s)"])
    const cdp = peer()
    const client = hub.connectClient(cdp.peer)!
    hub.clientMessage(client, JSON.stringify({ id: 1, method: "Target.setAutoAttach", params: { autoAttach: true, flatten: true } }))
    await flush()
    const first = cdp.sent.find((m) => m.method === "Target.attachedToTarget").params.sessionId

    // The browser stopped the worker: its socket closes, a new worker connects with the tab not attached yet.
    hub.extensionClosed(ext.peer)
    const worker = peer()
    hub.connectExtension(worker.peer)
    hub.extensionMessage(worker.peer, JSON.stringify({
      type: "hello", version: "1", product: "Chrome/1", userAgent: "UA", tabs: [tab({ attached: false, epoch: null as never })]
    }))
    expect(cdp.sent.at(-1)).toEqual({ method: "Target.detachedFromTarget", params: { sessionId: first, targetId: "T7" } })
    // A command on the old session fails at once instead of waiting for an attachment that would end it.
    const t0 = Date.now()
    hub.clientMessage(client, JSON.stringify({ id: 2, method: "Runtime.evaluate", params: {}, sessionId: first }))
    await flush()
    expect(cdp.sent.at(-1)).toMatchObject({ id: 2, error: { message: expect.stringMatching(/not found/) } })
    expect(Date.now() - t0).toBeLessThan(1_000)
    expect(hub.targetInfos()).toHaveLength(1)
    hub.extensionMessage(worker.peer, JSON.stringify({ type: "tab", tab: tab({ epoch: "e2" }) }))
    const attached = cdp.sent.filter((m) => m.method === "Target.attachedToTarget")
    expect(attached).toHaveLength(2)
    expect(attached[1].params.sessionId).not.toBe(first)
    expect(lines.filter((l) => /extension connected/.test(l))).toHaveLength(2)
  })
})
