import { afterEach, describe, expect, it } from "vitest"
import { type AgentCode, runAgentCode } from "../../../src/browser/act/inPage.js"

// The page function an evaluate sends (act/inPage.ts), called here as the library calls it in the page: with
// the code alone on the page, or with the element first. Its answer is what the agent's result is made from.

const PIN = "data-svc-pin"
const code = (source: string, more: Partial<AgentCode> = {}): AgentCode => ({ source, unmark: PIN, limit: 1000, ...more })

/** An element as the function touches it: its attributes, and who read it. */
const element = (name: string) => {
  const attributes = new Map([[PIN, "k1"], ["id", name]])
  return {
    id: name,
    nodeType: 1,
    nodeName: "BUTTON",
    className: "",
    attributes,
    getAttribute: (n: string) => attributes.get(n) ?? null,
    removeAttribute: (n: string) => void attributes.delete(n)
  }
}

const g = globalThis as { document?: unknown; ran?: number }

afterEach(() => {
  delete g.document
  delete g.ran
})

describe("runAgentCode", () => {
  it("answers an expression's and a function's value as JSON, and nothing for undefined", async () => {
    expect(await runAgentCode(code("1 + 1"))).toEqual({ json: "2", total: 1 })
    expect(await runAgentCode(code("async () => ({ a: [1, null] })"))).toEqual({ json: "{\"a\":[1,null]}", total: 14 })
    expect(await runAgentCode(code("() => { void 0 }"))).toEqual({ total: 0 })
    expect(await runAgentCode(code("() => null"))).toEqual({ json: "null", total: 4 })
  })

  it("cuts the JSON at the limit and says how long it was", async () => {
    const r = await runAgentCode(code("() => 'x'.repeat(50)", { limit: 10 }))
    expect(r).toEqual({ json: "\"xxxxxxxxx", total: 52 })
  })

  it("says when the result has no JSON, and shows nodes, functions and cycles as text", async () => {
    const r = await runAgentCode(code("() => ({ get bad() { throw new Error('no') } })"))
    expect(r.error).toContain("no")
    const shown = await runAgentCode(code("() => { const o = { f() {} }; o.self = o; return o }"))
    expect(JSON.parse(shown.json!)).toEqual({ f: "[function f]", self: "[seen above]" })
  })

  it("runs a function on the element it is given, with svc's pin taken off first", async () => {
    const el = element("save")
    const r = await runAgentCode(el, code("(el) => [el.id, el.getAttribute('" + PIN + "')]"))
    expect(JSON.parse(r.json!)).toEqual(["save", null])
    expect(el.attributes.has(PIN)).toBe(false)
  })

  it("finds the marked element in the document in the same call", async () => {
    const el = element("marked")
    const asked: Array<string> = []
    g.document = { querySelector: (s: string) => (asked.push(s), el) }
    const r = await runAgentCode(code("(el) => el.id", { marked: "[data-mark=\"k1\"]" }))
    expect(r).toEqual({ json: "\"marked\"", total: 8 })
    expect(asked).toEqual(["[data-mark=\"k1\"]"])
    expect(el.attributes.has(PIN)).toBe(false)
  })

  it("runs nothing when no element has the mark, and says so", async () => {
    g.document = { querySelector: () => null }
    const r = await runAgentCode(code("() => { globalThis.ran = (globalThis.ran ?? 0) + 1; return 1 }", { marked: "[data-mark=\"gone\"]" }))
    expect(r).toEqual({ total: 0, missing: true })
    expect(g.ran).toBeUndefined()
  })
})
