import { describe, expect, it } from "vitest"
import { withRawSends } from "../../../src/browser/pages/rawSends.js"
import type { CdpTransport } from "../../../src/browser/relay/inProcess.js"

// svc's own commands on a session of the library's connection, beside the library: the session's id is
// learnt from a marker the library sends on it, svc's commands go on the wire with ids of svc's own, and
// their answers never reach the library. A fake connection records what reaches the browser and hands the
// library's side what the browser answers.

interface Sent {
  readonly id?: number
  readonly method?: string
  readonly sessionId?: string
  readonly params?: Record<string, unknown>
}

const fakeConnection = () => {
  const sent: Array<Sent> = []
  let closed = 0
  const inner: CdpTransport = {
    send: (m) => void sent.push(m as Sent),
    close: () => void closed++
  }
  const { transport, raw } = withRawSends(inner)
  const heard: Array<object> = []
  const ended: Array<string | undefined> = []
  transport.onmessage = (m) => void heard.push(m)
  transport.onclose = (reason) => void ended.push(reason)
  const answer = (m: object) => inner.onmessage!(m)
  const closeBelow = (reason: string) => inner.onclose!(reason)
  /** The library sends the marker on its session `sessionId`, as openPageSession has it do. */
  const sendMarker = (sessionId: string) => {
    const marker = raw.markerFor()
    transport.send({ id: 7, sessionId, method: "Runtime.evaluate", params: { expression: "0", objectGroup: marker, returnByValue: true } })
    return marker
  }
  return { transport, raw, sent, heard, ended, answer, closeBelow, sendMarker, closedCount: () => closed }
}

describe("withRawSends", () => {
  it("learns a session from the library's marker, and answers svc's command from the wire without the library hearing of it", async () => {
    const c = fakeConnection()
    const marker = c.sendMarker("S1")
    expect(c.raw.sessionOf(marker)).toBe("S1")
    expect(c.raw.sessionOf("svc-raw-session:999")).toBeUndefined()
    // The library's own command went to the browser as it was.
    expect(c.sent).toEqual([{ id: 7, sessionId: "S1", method: "Runtime.evaluate", params: { expression: "0", objectGroup: marker, returnByValue: true } }])

    const answered = c.raw.send("S1", "Runtime.evaluate", { expression: "1+1", returnByValue: true })
    const own = c.sent[1]!
    expect(own).toMatchObject({ sessionId: "S1", method: "Runtime.evaluate", params: { expression: "1+1", returnByValue: true } })
    expect(own.id).toBeGreaterThanOrEqual(1_900_000_000)
    expect(own.id).toBeLessThan(2_000_000_000)
    c.answer({ id: own.id, sessionId: "S1", result: { result: { type: "number", value: 2 } } })
    await expect(answered).resolves.toEqual({ result: { type: "number", value: 2 } })
    // The library hears its own answers and the session's events, never svc's answers.
    c.answer({ id: 7, sessionId: "S1", result: { result: { type: "number", value: 0 } } })
    c.answer({ sessionId: "S1", method: "Page.frameNavigated", params: { frame: { id: "F" } } })
    expect(c.heard).toEqual([
      { id: 7, sessionId: "S1", result: { result: { type: "number", value: 0 } } },
      { sessionId: "S1", method: "Page.frameNavigated", params: { frame: { id: "F" } } }
    ])
  })

  it("rejects with the browser's error, and the library does not hear of it", async () => {
    const c = fakeConnection()
    const failed = c.raw.send("S1", "Runtime.evaluate", { expression: "0", contextId: 99 })
    c.answer({ id: c.sent[0]!.id, sessionId: "S1", error: { code: -32000, message: "Cannot find context with specified id" } })
    await expect(failed).rejects.toThrow("Protocol error (Runtime.evaluate): Cannot find context with specified id")
    expect(c.heard).toEqual([])
  })

  it("a detached session fails its pending commands (others wait on) and forgets its markers; the library hears the detach", async () => {
    const c = fakeConnection()
    const marker = c.sendMarker("S1")
    const onS1 = c.raw.send("S1", "Runtime.evaluate", { expression: "0" })
    const onS2 = c.raw.send("S2", "Runtime.evaluate", { expression: "0" })
    const detached = { method: "Target.detachedFromTarget", params: { sessionId: "S1", targetId: "T1" } }
    c.answer(detached)
    await expect(onS1).rejects.toThrow("the session was detached")
    expect(c.raw.sessionOf(marker)).toBeUndefined()
    expect(c.heard).toEqual([detached])
    const s2 = c.sent.find((m) => m.sessionId === "S2")!
    c.answer({ id: s2.id, sessionId: "S2", result: {} })
    await expect(onS2).resolves.toEqual({})
  })

  it("a closed connection fails what is pending and what is sent after; the library hears the close", async () => {
    const c = fakeConnection()
    const pending = c.raw.send("S1", "Target.getTargetInfo")
    c.closeBelow("gone")
    await expect(pending).rejects.toThrow("Protocol error (Target.getTargetInfo): the connection closed")
    await expect(c.raw.send("S1", "Target.getTargetInfo")).rejects.toThrow("the connection closed")
    expect(c.sent).toHaveLength(1)
    expect(c.ended).toEqual(["gone"])
    // Closing from the library's side closes the socket.
    c.transport.close()
    expect(c.closedCount()).toBe(1)
  })
})
