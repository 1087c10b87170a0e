import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { readStateText } from "../../../src/browser/inspect/StorageStates.js"

// A storage state file as `state load` reads it: Playwright's format (extra keys such as IndexedDB are
// ignored), or a message that says what is wrong and where.

const cookie = { name: "sid", value: "1", domain: "example.com", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" }

const message = (text: string) => {
  const r = readStateText(text, "/states/x.json")
  return Either.isLeft(r) ? r.left.message : undefined
}

describe("readStateText", () => {
  it("reads a state, leaving out what svc does not restore", () => {
    const r = readStateText(JSON.stringify({
      cookies: [cookie],
      origins: [{ origin: "https://example.com", localStorage: [{ name: "k", value: "v" }], indexedDB: [] }]
    }), "/states/x.json")
    expect(r).toEqual(Either.right({ cookies: [cookie], origins: [{ origin: "https://example.com", localStorage: [{ name: "k", value: "v" }] }] }))
  })

  it("says what is wrong with a file that is not one", () => {
    expect(message("{not json")).toMatch(/^storage state \/states\/x\.json: not JSON \(.+\); save one with `svc browser state save`$/)
    expect(message(JSON.stringify({ cookies: [] }))).toBe(
      "storage state /states/x.json: not a storage state: origins: is missing; save one with `svc browser state save`"
    )
    expect(message(JSON.stringify({ cookies: [{ ...cookie, sameSite: "Sometimes" }], origins: [] }))).toContain(
      "not a storage state: cookies.0.sameSite: sameSite is Strict, Lax or None; save one"
    )
    expect(message("[]")).toContain("not a storage state: expected an object {cookies: [...], origins: [...]}")
  })
})
