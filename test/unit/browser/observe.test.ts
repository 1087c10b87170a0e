import { describe, expect, it } from "vitest"
import { defaultAnswer } from "../../../src/browser/inspect/Dialogs.js"
import { Ring } from "../../../src/browser/inspect/Bounded.js"
import { atOrAbove, levelOf, parseLevel } from "../../../src/browser/inspect/ConsoleCapture.js"
import { isLoadedStatic, requestMatcher } from "../../../src/browser/inspect/NetworkCapture.js"
import {
  globToRegExp,
  isTextBody,
  makeUrlMatcher,
  truncateText,
  truncationMarker
} from "../../../src/browser/inspect/ResponseBodies.js"

describe("Ring", () => {
  it("keeps the newest items with increasing seq, oldest dropped", () => {
    const ring = new Ring<{ seq: number; n: number }>(3)
    for (let n = 0; n < 5; n++) ring.push((seq) => ({ seq, n }))
    expect(ring.size).toBe(3)
    expect(ring.toArray()).toEqual([{ seq: 3, n: 2 }, { seq: 4, n: 3 }, { seq: 5, n: 4 }])
  })

  it("600 pushes into 500 keep 101..600 in order", () => {
    const ring = new Ring<{ seq: number }>(500)
    for (let i = 0; i < 600; i++) ring.push((seq) => ({ seq }))
    const all = ring.toArray()
    expect(all.length).toBe(500)
    expect(all[0]!.seq).toBe(101)
    expect(all[499]!.seq).toBe(600)
  })

  it("clear empties but seq keeps increasing", () => {
    const ring = new Ring<{ seq: number }>(4)
    ring.push((seq) => ({ seq }))
    ring.push((seq) => ({ seq }))
    ring.clear()
    expect(ring.toArray()).toEqual([])
    ring.push((seq) => ({ seq }))
    expect(ring.toArray()).toEqual([{ seq: 3 }])
  })

  it("findNewest walks newest first", () => {
    const ring = new Ring<{ seq: number; v: string }>(3)
    for (const v of ["a", "b", "a", "c"]) ring.push((seq) => ({ seq, v }))
    expect(ring.findNewest((x) => x.v === "a")).toEqual({ seq: 3, v: "a" })
    expect(ring.findNewest((x) => x.v === "z")).toBeUndefined()
    const seen: Array<number> = []
    ring.findNewest((x) => void seen.push(x.seq) as unknown as boolean)
    expect(seen).toEqual([4, 3, 2])
  })
})

describe("console levels", () => {
  it("maps console methods to levels", () => {
    expect(levelOf("debug")).toBe("debug")
    expect(levelOf("verbose")).toBe("debug")
    expect(levelOf("log")).toBe("info")
    expect(levelOf("info")).toBe("info")
    expect(levelOf("table")).toBe("info")
    expect(levelOf("warning")).toBe("warning")
    expect(levelOf("error")).toBe("error")
    expect(levelOf("assert")).toBe("error")
  })

  it("parses levels as people write them", () => {
    expect(parseLevel("log")).toBe("info")
    expect(parseLevel("WARN")).toBe("warning")
    expect(parseLevel(" error ")).toBe("error")
    expect(parseLevel("verbose")).toBe("debug")
    expect(parseLevel("loud")).toBeUndefined()
  })

  it("filters at or above: debug < info < warning < error", () => {
    const entries = (["debug", "info", "warning", "error"] as const).map((level) => ({ level }))
    expect(entries.filter((e) => atOrAbove(e, "debug")).length).toBe(4)
    expect(entries.filter((e) => atOrAbove(e, "info")).map((e) => e.level)).toEqual(["info", "warning", "error"])
    expect(entries.filter((e) => atOrAbove(e, "warning")).map((e) => e.level)).toEqual(["warning", "error"])
    expect(entries.filter((e) => atOrAbove(e, "error")).map((e) => e.level)).toEqual(["error"])
  })
})

describe("URL globs", () => {
  it("* stays in a segment, ** crosses segments", () => {
    expect(globToRegExp("http://a/*/x").test("http://a/b/x")).toBe(true)
    expect(globToRegExp("http://a/*/x").test("http://a/b/c/x")).toBe(false)
    expect(globToRegExp("http://a/**/x").test("http://a/b/c/x")).toBe(true)
    expect(globToRegExp("**/api/*.json").test("http://h:1/v/api/items.json")).toBe(true)
  })

  it("escapes regexp characters", () => {
    expect(globToRegExp("http://a/x?y=1").test("http://a/x?y=1")).toBe(true)
    expect(globToRegExp("http://a/x?y=1").test("http://a/xzy=1")).toBe(false)
    expect(globToRegExp("**/a.b").test("http://h/aXb")).toBe(false)
  })

  it("matches the URL without its query, and substrings when there is no *", () => {
    const m = makeUrlMatcher("**/api/items")
    expect(m("http://h/api/items")).toBe(true)
    expect(m("http://h/api/items?page=2")).toBe(true)
    expect(m("http://h/api/items/3")).toBe(false)
    const sub = makeUrlMatcher("/API/big")
    expect(sub("http://h/api/big?x=1")).toBe(true)
    expect(sub("http://h/api/small")).toBe(false)
  })
})

describe("static resources", () => {
  it("are the images, fonts, stylesheets, scripts and media that loaded fine; a failed or pending one is not", () => {
    expect(isLoadedStatic({ resourceType: "image", state: "finished", status: 200 })).toBe(true)
    expect(isLoadedStatic({ resourceType: "script", state: "finished", status: 304 })).toBe(true)
    expect(isLoadedStatic({ resourceType: "stylesheet", state: "finished", status: 404 })).toBe(false)
    expect(isLoadedStatic({ resourceType: "font", state: "failed", status: null })).toBe(false)
    expect(isLoadedStatic({ resourceType: "image", state: "pending", status: 200 })).toBe(false)
    expect(isLoadedStatic({ resourceType: "fetch", state: "finished", status: 200 })).toBe(false)
    expect(isLoadedStatic({ resourceType: "document", state: "finished", status: 200 })).toBe(false)
  })
})

describe("request filter", () => {
  it("is a case-insensitive substring of the URL or method", () => {
    const r = { url: "http://h/API/Items", method: "POST" }
    expect(requestMatcher("api/items")(r)).toBe(true)
    expect(requestMatcher("post")(r)).toBe(true)
    expect(requestMatcher("get")(r)).toBe(false)
    expect(requestMatcher(undefined)(r)).toBe(true)
    expect(requestMatcher("")(r)).toBe(true)
    // A regular expression of the URL, as Playwright MCP reads its filter; a bad one matches as text only.
    expect(requestMatcher("/api/.*ems")(r)).toBe(true)
    expect(requestMatcher("API/I.EMS")(r)).toBe(true)
    expect(requestMatcher("/API/items/")(r)).toBe(false)
    expect(requestMatcher("/api/x.*")(r)).toBe(false)
    expect(requestMatcher("(api")(r)).toBe(false)
  })
})

describe("truncation", () => {
  it("leaves short text alone", () => {
    expect(truncateText("abc", 3)).toEqual({ text: "abc", truncated: false })
  })

  it("cuts to maxChars and adds a marker line", () => {
    const out = truncateText("x".repeat(100), 10)
    expect(out.truncated).toBe(true)
    expect(out.text).toBe(`${"x".repeat(10)}\n${truncationMarker(10, 100)}`)
    expect(out.text.split("\n").at(-1)).toBe("… [truncated: 10 of 100 characters]")
  })

  it("never splits a surrogate pair", () => {
    const out = truncateText("ab😀cd", 3)
    expect(out.text.startsWith("ab\n")).toBe(true)
    expect(out.text).toContain("[truncated: 2 of 6 characters]")
  })
})

describe("binary detection", () => {
  const enc = (s: string) => new TextEncoder().encode(s)
  it("trusts textual content types", () => {
    expect(isTextBody("application/json; charset=utf-8", enc("{}"))).toBe(true)
    expect(isTextBody("text/html", enc("<p>"))).toBe(true)
    expect(isTextBody("application/vnd.api+json", enc("{}"))).toBe(true)
    expect(isTextBody("image/svg+xml", enc("<svg/>"))).toBe(true)
  })
  it("treats other declared types as binary", () => {
    expect(isTextBody("image/png", enc("PNG"))).toBe(false)
  })
  it("sniffs untyped and octet-stream bodies", () => {
    expect(isTextBody(null, enc("héllo"))).toBe(true)
    expect(isTextBody("application/octet-stream", new Uint8Array([0x89, 0x50, 0, 1]))).toBe(false)
    expect(isTextBody(null, new Uint8Array([0xff, 0xfe, 0xfd]))).toBe(false)
    // A multi-byte character cut at the end of the 4 KiB sample is still text.
    const big = enc("a".repeat(4_095) + "é" + "b".repeat(10))
    expect(isTextBody(null, big)).toBe(true)
  })
})

describe("dialog default policy", () => {
  it("accepts alerts and beforeunload, dismisses confirm and prompt", () => {
    expect(defaultAnswer("alert")).toBe("accepted")
    expect(defaultAnswer("beforeunload")).toBe("accepted")
    expect(defaultAnswer("confirm")).toBe("dismissed")
    expect(defaultAnswer("prompt")).toBe("dismissed")
  })
})
