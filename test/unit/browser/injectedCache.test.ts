import { describe, expect, it } from "vitest"
import { cacheInjectedScript } from "../../../src/browser/pages/injectedCache.js"
import type { CdpTransport } from "../../../src/browser/relay/inProcess.js"

// The library's connection with its injected script compiled once per renderer: the wrapper learns the
// script from the library's first evaluation of it, asks each page session's utility world to define it as
// a function in every document, and sends the library's later evaluations as a call of it. A fake
// connection records what reaches the browser and hands the library's side what the browser answers.

const WORLD = "__playwright_utility_world_page@abc"
const SESSION = "S1"
const SOURCE = `\nvar __lib = ${JSON.stringify("x".repeat(60_000))};\nmodule.exports = { InjectedScript: () => class InjectedScript { constructor(g, o) { this.seq = o.frameSeq } } };\n`
const injection = (id: number, contextId: number, source = SOURCE, kind = "InjectedScript") => ({
  id,
  sessionId: SESSION,
  method: "Runtime.evaluate",
  params: {
    expression: `\n(() => {\nconst module = {};${source}return new (module.exports.${kind}())(globalThis, {"frameSeq":${id}});\n})();\n`,
    contextId
  }
})
const MISSING = "Error: svc: the library script's function is missing in this world"

interface Sent {
  readonly id?: number
  readonly method?: string
  readonly sessionId?: string
  readonly params?: { readonly expression?: string; readonly source?: string; readonly worldName?: string; readonly runImmediately?: boolean }
}

const fakeConnection = () => {
  const sent: Array<Sent> = []
  const inner: CdpTransport = {
    send: (m) => void sent.push(m as Sent),
    close: () => undefined
  }
  const transport = cacheInjectedScript(inner)
  const heard: Array<object> = []
  transport.onmessage = (m) => void heard.push(m)
  const answer = (m: object) => inner.onmessage!(m)
  /** The page session as the library starts it: its utility world asked for, one context of it and one of the page's own. */
  const startSession = async (sessionId = SESSION) => {
    transport.send({ id: 1, sessionId, method: "Page.addScriptToEvaluateOnNewDocument", params: { source: "", worldName: WORLD } })
    answer({ sessionId, method: "Runtime.executionContextCreated", params: { context: { id: 10, name: "", auxData: { isDefault: true } } } })
    answer({ sessionId, method: "Runtime.executionContextCreated", params: { context: { id: 11, name: WORLD, auxData: { isDefault: false } } } })
    await Promise.resolve()
    // The library hears of its contexts (what it hears from here on is what each test looks at).
    expect(heard.splice(0).length).toBe(2)
  }
  const ownCommands = () => sent.filter((m) => (m.id ?? 0) >= 2_000_000_000)
  return { transport, sent, heard, answer, startSession, ownCommands }
}

describe("cacheInjectedScript", () => {
  it("learns the script from the library's first evaluation, defines it in the utility world first, and sends that evaluation short", async () => {
    const c = fakeConnection()
    await c.startSession()
    expect(c.ownCommands()).toEqual([])
    c.transport.send(injection(5, 11))
    const [arming] = c.ownCommands()
    expect(arming).toMatchObject({
      sessionId: SESSION,
      method: "Page.addScriptToEvaluateOnNewDocument",
      params: { worldName: WORLD, runImmediately: true }
    })
    expect(arming!.params!.source).toContain(SOURCE)
    // The arming goes before the library's evaluation, which goes short (the function is defined by then).
    const evaluation = c.sent.at(-1)!
    expect(c.sent.indexOf(arming!)).toBeLessThan(c.sent.indexOf(evaluation))
    expect(evaluation.id).toBe(5)
    expect(evaluation.params!.expression!.length).toBeLessThan(1_000)
    expect(evaluation.params!.expression).toContain(`{"frameSeq":5}`)
    // svc's own answer stays with svc; the library's reaches the library.
    c.answer({ id: arming!.id, sessionId: SESSION, result: { identifier: "1" } })
    c.answer({ id: 5, sessionId: SESSION, result: { result: { type: "object", objectId: "o1" } } })
    expect(c.heard).toEqual([{ id: 5, sessionId: SESSION, result: { result: { type: "object", objectId: "o1" } } }])
    expect(c.transport.stats()).toEqual({
      learned: ["InjectedScript"],
      armedSessions: 1,
      sentShort: { InjectedScript: 1, UtilityScript: 0 },
      sentWhole: { InjectedScript: 0, UtilityScript: 0 }
    })
  })

  it("the short form runs the same source: the function's definition evaluates to the library's instance", async () => {
    const c = fakeConnection()
    await c.startSession()
    c.transport.send(injection(5, 11))
    const definition = c.ownCommands()[0]!.params!.source!
    const short = c.sent.at(-1)!.params!.expression!
    const world: Record<string, unknown> = {}
    new Function("globalThis", definition)(world)
    const made = new Function("globalThis", `return ${short.trim()}`)(world) as { readonly seq: number }
    expect(made.constructor.name).toBe("InjectedScript")
    expect(made.seq).toBe(5)
    // Not enumerable on the world's global.
    expect(Object.keys(world)).toEqual([])
  })

  it("sends the library's evaluation whole where the function is missing, with the library's id, and hides the miss", async () => {
    const c = fakeConnection()
    await c.startSession()
    c.transport.send(injection(5, 11))
    const short = c.sent.at(-1)!
    c.answer({
      id: 5,
      sessionId: SESSION,
      result: {
        result: { type: "object", subtype: "error" },
        exceptionDetails: { text: "Uncaught", exception: { description: MISSING } }
      }
    })
    const again = c.sent.at(-1)!
    expect(again).not.toBe(short)
    expect(again).toEqual(injection(5, 11))
    expect(c.heard).toEqual([])
    c.answer({ id: 5, sessionId: SESSION, result: { result: { type: "object", objectId: "o2" } } })
    expect(c.heard).toEqual([{ id: 5, sessionId: SESSION, result: { result: { type: "object", objectId: "o2" } } }])
    expect(c.transport.stats()).toMatchObject({ sentShort: { InjectedScript: 0 }, sentWhole: { InjectedScript: 1 } })
  })

  it("leaves whole an evaluation in the page's own world, in a context it does not know, or of another script", async () => {
    const c = fakeConnection()
    await c.startSession()
    c.transport.send(injection(5, 11))
    for (const m of [injection(6, 10), injection(7, 99), injection(8, 11, SOURCE.replace("x", "y"))]) {
      c.transport.send(m)
      expect(c.sent.at(-1)).toEqual(m)
    }
    // Nor anything else that merely mentions a module.
    const other = { id: 9, sessionId: SESSION, method: "Runtime.evaluate", params: { expression: "const module = {}; 1", contextId: 11 } }
    c.transport.send(other)
    expect(c.sent.at(-1)).toEqual(other)
    expect(c.transport.stats()).toMatchObject({ sentShort: { InjectedScript: 1 }, sentWhole: { InjectedScript: 3 } })
  })

  it("arms each page session at the library's first evaluation there, and never again one the browser refused", async () => {
    const c = fakeConnection()
    await c.startSession()
    c.transport.send(injection(5, 11))
    await c.startSession("S2")
    // A session the library has not read yet is left alone.
    expect(c.ownCommands().filter((m) => m.sessionId === "S2")).toEqual([])
    const first = { ...injection(6, 11), sessionId: "S2" }
    c.transport.send(first)
    const second = c.ownCommands().find((m) => m.sessionId === "S2")
    expect(second).toMatchObject({ method: "Page.addScriptToEvaluateOnNewDocument", params: { worldName: WORLD, runImmediately: true } })
    expect(c.sent.at(-1)!.params!.expression!.length).toBeLessThan(1_000)
    // Refused there (a closing target): the miss is sent whole, as is every later evaluation on that session.
    c.answer({ id: second!.id, sessionId: "S2", error: { code: -32000, message: "Target closed" } })
    c.answer({ id: 6, sessionId: "S2", result: { exceptionDetails: { exception: { description: MISSING } } } })
    expect(c.sent.at(-1)).toEqual(first)
    const later = { ...injection(7, 11), sessionId: "S2" }
    c.transport.send(later)
    expect(c.sent.at(-1)).toEqual(later)
    expect(c.ownCommands().filter((m) => m.sessionId === "S2").length).toBe(1)
    expect(c.heard).toEqual([])
  })

  it("takes the library's utility script the same way, as a function of its own", async () => {
    const c = fakeConnection()
    await c.startSession()
    const utilitySource = `\nvar __u = ${JSON.stringify("u".repeat(6_000))};\nmodule.exports = { UtilityScript: () => class UtilityScript {} };\n`
    c.transport.send(injection(5, 11, utilitySource, "UtilityScript"))
    c.transport.send(injection(6, 11))
    const [utilityArming, injectedArming] = c.ownCommands()
    expect(utilityArming!.params!.source).toContain(utilitySource)
    expect(utilityArming!.params!.source).toContain("__svcUtilityScript")
    expect(injectedArming!.params!.source).toContain("__svcInjectedScript")
    const short = c.sent.filter((m) => m.method === "Runtime.evaluate").map((m) => m.params!.expression!)
    expect(short[0]).toContain("__svcUtilityScript")
    expect(short[1]).toContain("__svcInjectedScript")
    expect(c.transport.stats()).toMatchObject({
      learned: ["UtilityScript", "InjectedScript"],
      sentShort: { InjectedScript: 1, UtilityScript: 1 }
    })
  })

  it("learns nothing from a script too short to be the library's (the marks alone)", async () => {
    const c = fakeConnection()
    await c.startSession()
    const tiny = injection(7, 11, "\nmodule.exports = { UtilityScript: () => class {} };\n", "UtilityScript")
    c.transport.send(tiny)
    expect(c.sent.at(-1)).toEqual(tiny)
    expect(c.ownCommands()).toEqual([])
    expect(c.transport.stats().learned).toEqual([])
  })

  it("forgets a context once it is gone, and a session once detached", async () => {
    const c = fakeConnection()
    await c.startSession()
    c.transport.send(injection(5, 11))
    c.answer({ sessionId: SESSION, method: "Runtime.executionContextDestroyed", params: { executionContextId: 11 } })
    c.transport.send(injection(6, 11))
    expect(c.sent.at(-1)).toEqual(injection(6, 11))
    c.answer({ sessionId: SESSION, method: "Runtime.executionContextCreated", params: { context: { id: 12, name: WORLD } } })
    c.answer({ method: "Target.detachedFromTarget", params: { sessionId: SESSION } })
    c.transport.send(injection(7, 12))
    expect(c.sent.at(-1)).toEqual(injection(7, 12))
    // Every event still reaches the library.
    expect(c.heard.map((m) => (m as { method?: string }).method)).toEqual([
      "Runtime.executionContextDestroyed",
      "Runtime.executionContextCreated",
      "Target.detachedFromTarget"
    ])
  })
})
