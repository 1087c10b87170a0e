import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { inProcessTransport } from "../../../src/browser/relay/inProcess.js"
import { LocalRelay } from "../../../src/browser/relay/LocalRelay.js"
import { type Peer, RelayHub } from "../../../src/browser/relay/RelayHub.js"

// The gateway's own connection to its relay, without a socket: what a CDP client of the hub sees through it,
// and which endpoints are let through that way.

const flush = () => new Promise((r) => setTimeout(r, 0))

const extension = () => {
  const sent: Array<any> = []
  const peer: Peer = { send: (m) => void sent.push(m), close: () => undefined }
  return { peer, sent }
}

const sharedTab = { tabId: 7, targetId: "T7", url: "http://a.test/", title: "A", browserContextId: "CTX", attached: true, epoch: "e1" }

const hubWithTab = () => {
  const hub = new RelayHub({ attachWaitMs: 200 })
  const ext = extension()
  hub.connectExtension(ext.peer)
  hub.extensionMessage(ext.peer, JSON.stringify({ type: "hello", version: "1", product: "Chrome/1", userAgent: "UA", tabs: [sharedTab] }))
  return { hub, ext }
}

describe("the relay in this process", () => {
  it("carries commands to the extension and answers and events back, in order and never inside send", async () => {
    const { hub, ext } = hubWithTab()
    const transport = inProcessTransport(hub)
    const got: Array<any> = []
    transport.onmessage = (m) => void got.push(m)
    transport.send({ id: 1, method: "Target.setAutoAttach", params: { autoAttach: true, waitForDebuggerOnStart: false, flatten: true } })
    // The announcement of the shared tab is made while the command is handled: not handed over yet.
    expect(got).toEqual([])
    await flush()
    expect(got.map((m) => m.method ?? `answer ${m.id}`)).toEqual(["Target.attachedToTarget", "answer 1"])
    const sessionId = got[0].params.sessionId as string
    expect(got[0].params.targetInfo).toMatchObject({ targetId: "T7", browserContextId: "CTX" })

    transport.send({ id: 2, method: "Runtime.evaluate", params: { expression: "1 + 1" }, sessionId })
    await flush()
    const request = ext.sent.find((m) => m.method === "Runtime.evaluate")
    expect(request).toMatchObject({ type: "command", tabId: 7, params: { expression: "1 + 1" } })
    hub.extensionMessage(ext.peer, JSON.stringify({ type: "result", id: request.id, result: { result: { type: "number", value: 2 } } }))
    await flush()
    expect(got.at(-1)).toEqual({ id: 2, result: { result: { type: "number", value: 2 } }, sessionId })

    // A failure comes back as CDP's error.
    transport.send({ id: 3, method: "Nope.nothing", params: {}, sessionId: "no-such-session" })
    await flush()
    expect(got.at(-1)).toMatchObject({ id: 3, error: { message: expect.stringMatching(/no-such-session/) } })
  })

  it("closing it is the client leaving (the extension lets the debugger go); nothing arrives after", async () => {
    const { hub, ext } = hubWithTab()
    const transport = inProcessTransport(hub)
    expect(hub.clientCount).toBe(1)
    const got: Array<unknown> = []
    let closed: string | undefined = "not yet"
    transport.onmessage = (m) => void got.push(m)
    transport.onclose = (reason) => void (closed = reason)
    transport.send({ id: 1, method: "Browser.getVersion" })
    transport.close()
    await flush()
    expect(got).toEqual([])
    expect(closed).toBeUndefined()
    expect(hub.clientCount).toBe(0)
    expect(ext.sent.at(-1)).toEqual({ type: "clients", count: 0 })
  })

  it("the relay shutting down closes it with the reason", async () => {
    const { hub } = hubWithTab()
    const transport = inProcessTransport(hub)
    let closed: string | undefined
    transport.onclose = (reason) => void (closed = reason)
    hub.close()
    await flush()
    expect(closed).toMatch(/stopping/)
  })

  it("is used only for this relay's port on loopback, with the gateway's secret, while the extension is connected", async () => {
    const hub = new RelayHub()
    const secrets = { token: "tok-123", password: undefined }
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const local = yield* LocalRelay
      const url = "http://svc:tok-123@127.0.0.1:18792"
      expect(local.transportFor(url)).toBeUndefined() // not serving yet
      const scope = yield* Scope.make()
      yield* Scope.extend(local.serve({ hub, port: 18792, secrets }), scope)
      expect(local.transportFor(url)).toBeUndefined() // no extension
      const ext = extension()
      hub.connectExtension(ext.peer)
      expect(local.transportFor(url)).toBeDefined()
      expect(local.transportFor("http://127.0.0.1:18792/?token=tok-123")).toBeDefined()
      expect(local.transportFor("http://svc:tok-123@localhost:18792")).toBeDefined()
      for (const other of [
        "http://127.0.0.1:18792", // no secret
        "http://svc:wrong@127.0.0.1:18792",
        "http://svc:tok-123@127.0.0.1:18793", // another port
        "http://svc:tok-123@10.0.0.5:18792", // not loopback
        "not a url"
      ]) {
        expect(local.transportFor(other), other).toBeUndefined()
      }
      yield* Scope.close(scope, Exit.void)
      expect(local.transportFor(url)).toBeUndefined() // stopped serving
    }).pipe(Effect.provide(LocalRelay.Default))))
  })
})
